#include "common/allocator.h"

#include <malloc.h>

namespace quiver {

void TuneAllocatorForLargeBuffers() {
#if defined(__GLIBC__)
  // Fixed values also turn off glibc's dynamic threshold (which would trim the heap at twice a
  // recently freed mmap size). Under a sanitizer's allocator these are ignored.
  mallopt(M_MMAP_THRESHOLD, 256 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
}

}  // namespace quiver
