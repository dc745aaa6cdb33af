// libFuzzer target: the Lance data-file reader (format/lance_file_reader.h) must never crash,
// hang or allocate without bound on any input; the input is the whole file. Whatever it accepts
// must come out as valid Arrow batches (the reader validates every batch it returns).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "arrow/buffer.h"
#include "format/lance_file_reader.h"
#include "store/memory_store.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto store = quiver::MemoryObjectStore::Create();
  std::string bytes(reinterpret_cast<const char*>(data), size);
  if (!store->Put("f.lance", bytes).ok()) return 0;
  // A pool with a limit: a hostile file must fail, not exhaust memory.
  quiver::arrow::MemoryPool pool(256ull << 20);
  quiver::format::FileReadOptions options;
  options.pool = &pool;
  auto reader = quiver::format::LanceFileReader::Open(store, "f.lance", options);
  if (!reader.ok()) return 0;
  quiver::format::ReadRequest request;
  request.batch_rows = 1000;
  auto stream = (*reader)->Read(request);
  if (!stream.ok()) return 0;
  for (int batches = 0; batches < 10000; ++batches) {
    auto batch = (*stream)->Next();
    if (!batch.ok() || !*batch) break;
    if (!(*batch)->Validate(true).ok()) std::abort();
  }
  return 0;
}
