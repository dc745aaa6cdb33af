// libFuzzer target: the Arrow IPC readers (arrow/ipc/reader.h) must never crash, hang or
// allocate without bound on any input, read as a stream and as a file; and whatever they
// accept must be valid and survive a write and a re-read unchanged.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string_view>
#include <vector>

#include "arrow/compare.h"
#include "arrow/ipc/reader.h"
#include "arrow/ipc/writer.h"

namespace {

using quiver::arrow::Buffer;
using quiver::arrow::MemoryPool;
using quiver::arrow::RecordBatch;
using quiver::arrow::Schema;
namespace ipc = quiver::arrow::ipc;

// Round trips compare row by row; skip them for inputs that claim very many (bufferless) rows.
constexpr int64_t kMaxCompareRows = 100000;

ipc::ReadOptions Options(MemoryPool* pool) {
  ipc::ReadOptions options;
  options.pool = pool;
  options.max_message_bytes = 16 << 20;
  options.max_decompressed_bytes = 64 << 20;
  return options;
}

void CheckRoundTrip(const std::shared_ptr<const Schema>& schema,
                    const std::vector<RecordBatch>& batches) {
  int64_t rows = 0;
  for (const RecordBatch& b : batches) {
    if (!b.Validate(true).ok()) std::abort();  // the reader hands out only valid batches
    rows += b.length;
  }
  if (rows > kMaxCompareRows) return;
  auto bytes = ipc::WriteStreamToString(schema, batches);
  if (!bytes.ok()) std::abort();  // anything read must be writable
  auto again = ipc::ReadStreamFromString(*bytes);
  if (!again.ok() || !(*again->schema == *schema) || again->batches.size() != batches.size()) {
    std::abort();
  }
  for (size_t i = 0; i < batches.size(); ++i) {
    if (quiver::arrow::Diff(batches[i], again->batches[i]).has_value()) std::abort();
  }
}

void ReadAsStream(const std::shared_ptr<Buffer>& input, MemoryPool* pool) {
  auto reader = ipc::StreamReader::Open(input, Options(pool));
  if (!reader.ok()) return;
  std::vector<RecordBatch> batches;
  for (;;) {
    auto next = (*reader)->Next();
    if (!next.ok()) return;
    if (!next->has_value()) break;
    batches.push_back(std::move(**next));
  }
  CheckRoundTrip((*reader)->schema(), batches);
}

void ReadAsFile(const std::shared_ptr<Buffer>& input, MemoryPool* pool) {
  auto reader = ipc::FileReader::Open(input, Options(pool));
  if (!reader.ok()) return;
  std::vector<RecordBatch> batches;
  for (int i = 0; i < (*reader)->num_batches(); ++i) {
    auto batch = (*reader)->ReadBatch(i);
    if (!batch.ok()) continue;  // other batches of the file may still be fine
    batches.push_back(std::move(*batch));
  }
  CheckRoundTrip((*reader)->schema(), batches);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Every allocation of one input goes through this pool; its limit bounds memory.
  static MemoryPool pool(512 << 20);
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  // An aligned copy, so that zero-copy slicing (the common path) is what gets exercised.
  auto input = Buffer::CopyOf(bytes, &pool);
  if (!input.ok()) return 0;
  ReadAsStream(*input, &pool);
  ReadAsFile(*input, &pool);
  return 0;
}
