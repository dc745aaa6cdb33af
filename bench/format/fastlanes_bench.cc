// Micro-benchmarks of the hottest Lance decode loops, next to their memcpy floor:
//   - FastLanes unpack of one 1024-value block for a few (T, W), vs memcpy of the decoded bytes;
//   - FSST bulk decode of 16 KiB of English-like strings, vs memcpy of the decoded bytes.
//
//   build/bench/fastlanes_bench [--benchmark_filter=...]
//
// Bytes/s counts *decoded* bytes, so the unpack and memcpy rows are directly comparable.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "format/internal/codecs/fastlanes.h"
#include "format/internal/codecs/fsst.h"

namespace {

using namespace quiver::format::codecs;

template <typename T>
void BM_Unpack(benchmark::State& state) {
  const int width = static_cast<int>(state.range(0));
  std::mt19937_64 rng(1);
  alignas(64) T in[1024];
  for (auto& v : in) {
    v = static_cast<T>(rng());
    if (width < kWordBits<T>) v = static_cast<T>(v & ((T{1} << width) - 1));
  }
  alignas(64) T packed[1024];
  alignas(64) T out[1024];
  Pack<T>(in, width, packed);
  for (auto _ : state) {
    Unpack<T>(packed, width, out);
    benchmark::DoNotOptimize(out);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * 1024 * sizeof(T));
}

template <typename T>
void BM_Memcpy(benchmark::State& state) {
  alignas(64) T in[1024] = {};
  alignas(64) T out[1024];
  for (auto _ : state) {
    std::memcpy(out, in, sizeof(out));
    benchmark::DoNotOptimize(out);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * 1024 * sizeof(T));
}

BENCHMARK(BM_Unpack<uint8_t>)->Arg(3)->Arg(8);
BENCHMARK(BM_Memcpy<uint8_t>);
BENCHMARK(BM_Unpack<uint16_t>)->Arg(1)->Arg(11)->Arg(16);
BENCHMARK(BM_Memcpy<uint16_t>);
BENCHMARK(BM_Unpack<uint32_t>)->Arg(7)->Arg(17)->Arg(30)->Arg(32);
BENCHMARK(BM_Memcpy<uint32_t>);
BENCHMARK(BM_Unpack<uint64_t>)->Arg(13)->Arg(33)->Arg(63)->Arg(64);
BENCHMARK(BM_Memcpy<uint64_t>);

struct FsstCorpus {
  std::vector<uint8_t> plain;
  std::vector<uint32_t> plain_offsets{0};
  std::vector<uint8_t> comp;
  std::vector<uint32_t> comp_offsets;
  std::array<uint8_t, kFsstSymbolTableBytes> table{};
};

const FsstCorpus& Corpus() {
  static const FsstCorpus corpus = [] {
    static const char* kWords[] = {"the",   "of",      "and",         "information", "to",
                                   "in",    "is",      "development", "that",        "for",
                                   "with",  "between", "government",  "people",      "which",
                                   "would", "country", "important",   "children",    "research"};
    FsstCorpus c;
    std::mt19937_64 rng(2);
    while (c.plain.size() < 16 * 1024) {
      std::string s;
      for (size_t w = 0, n = 4 + rng() % 12; w < n; ++w) {
        s += kWords[rng() % 20];
        s += ' ';
      }
      c.plain.insert(c.plain.end(), s.begin(), s.end());
      c.plain_offsets.push_back(static_cast<uint32_t>(c.plain.size()));
    }
    auto enc = FsstEncoder::Train<uint32_t>(c.plain, c.plain_offsets);
    if (!enc.ok()) std::abort();
    if (!enc->CompressStrings<uint32_t>(c.plain, c.plain_offsets, &c.comp, &c.comp_offsets).ok()) {
      std::abort();
    }
    c.table = enc->SerializeTable();
    return c;
  }();
  return corpus;
}

void BM_FsstDecode(benchmark::State& state) {
  const FsstCorpus& c = Corpus();
  auto dec = FsstDecoder::Parse(c.table);
  if (!dec.ok()) std::abort();
  std::vector<uint8_t> out(dec->MaxDecodedSize(c.comp.size()) + kFsstDecodeSlack);
  std::vector<uint32_t> out_offsets(c.comp_offsets.size());
  for (auto _ : state) {
    auto n = dec->DecodeStrings<uint32_t>(c.comp, c.comp_offsets, out.data(), out.size(),
                                          out_offsets.data());
    benchmark::DoNotOptimize(n);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(c.plain.size()));
  state.counters["ratio"] = static_cast<double>(c.comp.size()) / c.plain.size();
}
BENCHMARK(BM_FsstDecode);

void BM_FsstDecodeMemcpy(benchmark::State& state) {
  const FsstCorpus& c = Corpus();
  std::vector<uint8_t> out(c.plain.size());
  for (auto _ : state) {
    std::memcpy(out.data(), c.plain.data(), c.plain.size());
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(c.plain.size()));
}
BENCHMARK(BM_FsstDecodeMemcpy);

}  // namespace

BENCHMARK_MAIN();
