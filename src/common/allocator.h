// Process-wide allocator settings for a process that moves large buffers: scans read data-file
// pages into buffers of megabytes (16 MB and more per vector-column read) and free them a batch
// later. With glibc's defaults each such buffer is its own mmap, returned at free, so every scan
// pays a page fault per 4 KiB of what it reads (measured: 60 % of an exact kNN over 512 MB of
// vectors). TuneAllocatorForLargeBuffers keeps buffers up to 256 MiB in the heap and lets up to
// 1 GiB of freed heap stay mapped for the next batch, trading resident memory after a large
// query for not faulting it in again.
// Thread-safety: call once at start-up, before other threads allocate.
#pragma once

namespace quiver {

void TuneAllocatorForLargeBuffers();

}  // namespace quiver
