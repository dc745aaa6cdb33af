#include "format/internal/codecs/fsst.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <unordered_map>
#include <utility>

#include <fmt/format.h>

#include "format/internal/codecs/bytes.h"

namespace quiver::format::codecs {
namespace {

using internal::LoadLE;
using internal::StoreLE;

// The n symbol lengths follow the n symbols directly (Lance's fsst.rs export/init); the rest of
// the 2312-byte table is unused. (lance-file-format.md §4.8 says "256 symbols, then 256 lengths":
// that is the buffer's size, not its layout.)
size_t LensOffset(size_t num_symbols) { return 8 + 8 * num_symbols; }

uint64_t SymbolMask(size_t len) { return len >= 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * len)) - 1; }

constexpr size_t kOffsetsOk = std::numeric_limits<size_t>::max();

// Offsets must have at least one entry, be non-decreasing and stay within `size`. Returns the
// index of the first bad entry (0 when there are none), or kOffsetsOk.
template <typename Offset>
size_t FirstBadOffset(std::span<const Offset> offsets, size_t size) {
  if (offsets.empty()) return 0;
  if (static_cast<uint64_t>(offsets[0]) > size) return 0;
  for (size_t i = 1; i < offsets.size(); ++i) {
    if (offsets[i] < offsets[i - 1] || static_cast<uint64_t>(offsets[i]) > size) return i;
  }
  return kOffsetsOk;
}

}  // namespace

// ------------------------------------------------------------------------------------------
// Decoder

Result<FsstDecoder> FsstDecoder::Parse(std::span<const uint8_t> table) {
  if (table.size() != kFsstSymbolTableBytes) {
    return Status::Corruption(fmt::format("fsst: symbol table has {} bytes, expected {}",
                                          table.size(), kFsstSymbolTableBytes));
  }
  const uint64_t header = LoadLE<uint64_t>(table.data());
  // Lance checks only that the magic bits are set (st_info & FSST_MAGIC == FSST_MAGIC).
  constexpr uint64_t kMagicBits = uint64_t{kFsstMagic} << 32;
  if ((header & kMagicBits) != kMagicBits) {
    return Status::Corruption(
        fmt::format("fsst: symbol table header {:#018x} at offset 0 lacks the FSST magic", header));
  }
  FsstDecoder d;
  d.compressed_ = ((header >> 24) & 1) != 0;
  d.num_symbols_ = static_cast<int>(header & 0xFF);
  if (d.num_symbols_ > static_cast<int>(kFsstMaxSymbols)) {
    return Status::Corruption(fmt::format(
        "fsst: {} symbols, but code 255 is the escape (at most 255 symbols)", d.num_symbols_));
  }
  size_t max_len = 1;
  for (int i = 0; i < d.num_symbols_; ++i) {
    const size_t at = LensOffset(static_cast<size_t>(d.num_symbols_)) + static_cast<size_t>(i);
    const uint8_t len = table[at];
    if (len == 0 || len > kFsstMaxSymbolLength) {
      return Status::Corruption(
          fmt::format("fsst: symbol {} has length {} (offset {})", i, len, at));
    }
    d.lens_[static_cast<size_t>(i)] = len;
    d.symbols_[static_cast<size_t>(i)] =
        LoadLE<uint64_t>(table.data() + 8 + 8 * static_cast<size_t>(i)) & SymbolMask(len);
    max_len = std::max<size_t>(max_len, len);
  }
  d.max_len_ = max_len;
  return d;
}

size_t FsstDecoder::MaxDecodedSize(size_t compressed_bytes) const {
  if (!compressed_) return compressed_bytes;
  size_t bound = 0;
  if (__builtin_mul_overflow(compressed_bytes, max_len_, &bound)) {
    return std::numeric_limits<size_t>::max() - kFsstDecodeSlack;
  }
  return std::min(bound, std::numeric_limits<size_t>::max() - kFsstDecodeSlack);
}

uint8_t* FsstDecoder::DecodeRun(const uint8_t* in, const uint8_t* in_end, uint8_t* out) const {
  const uint64_t* symbols = symbols_.data();
  const uint8_t* lens = lens_.data();
  // A code without a symbol has length 0; `bad` collects that without a branch per code.
  uint32_t bad = 0;
#define QV_FSST_EMIT(code)                 \
  do {                                     \
    const uint8_t c_ = (code);             \
    const uint32_t l_ = lens[c_];          \
    StoreLE<uint64_t>(out, symbols[c_]);   \
    bad |= static_cast<uint32_t>(l_ == 0); \
    out += l_;                             \
  } while (false)

  while (in_end - in >= 4) {
    const uint32_t block = LoadLE<uint32_t>(in);
    // Bytes equal to 0xFF (escapes) become zero in ~block; the lowest flagged byte of the
    // classic has-zero-byte test is exact.
    const uint32_t inv = ~block;
    const uint32_t escapes = (inv - 0x01010101u) & ~inv & 0x80808080u;
    if (escapes == 0) {
      QV_FSST_EMIT(in[0]);
      QV_FSST_EMIT(in[1]);
      QV_FSST_EMIT(in[2]);
      QV_FSST_EMIT(in[3]);
      in += 4;
      continue;
    }
    const int first = __builtin_ctz(escapes) >> 3;
    for (int k = 0; k < first; ++k) QV_FSST_EMIT(in[k]);
    in += first;
    // *in is an escape; its literal must be inside the string.
    if (in + 1 >= in_end) return nullptr;
    *out++ = in[1];
    in += 2;
  }
  while (in < in_end) {
    const uint8_t c = *in++;
    if (c == kFsstEscape) {
      if (in == in_end) return nullptr;
      *out++ = *in++;
    } else {
      QV_FSST_EMIT(c);
    }
  }
#undef QV_FSST_EMIT
  return bad != 0 ? nullptr : out;
}

Status FsstDecoder::DescribeError(std::span<const uint8_t> in, size_t string_index,
                                  size_t base_offset) const {
  for (size_t i = 0; i < in.size(); ++i) {
    const uint8_t c = in[i];
    if (c == kFsstEscape) {
      if (i + 1 == in.size()) {
        return Status::Corruption(fmt::format(
            "fsst: string {} ends with an escape code (offset {})", string_index, base_offset + i));
      }
      ++i;
    } else if (lens_[c] == 0) {
      return Status::Corruption(
          fmt::format("fsst: string {} uses code {} but the table has {} symbols (offset {})",
                      string_index, c, num_symbols_, base_offset + i));
    }
  }
  return Status::Corruption(fmt::format("fsst: string {} is malformed", string_index));
}

Result<size_t> FsstDecoder::DecodeString(std::span<const uint8_t> in, uint8_t* out,
                                         size_t out_capacity) const {
  const size_t bound = MaxDecodedSize(in.size());
  if (out_capacity < bound + kFsstDecodeSlack) {
    return Status::InvalidInput(fmt::format(
        "fsst: output capacity {} is below the bound {} + {} slack for {} compressed bytes",
        out_capacity, bound, kFsstDecodeSlack, in.size()));
  }
  if (in.empty()) return size_t{0};
  if (!compressed_) {
    std::memcpy(out, in.data(), in.size());
    return in.size();
  }
  uint8_t* end = DecodeRun(in.data(), in.data() + in.size(), out);
  if (end == nullptr) return DescribeError(in, 0, 0);
  return static_cast<size_t>(end - out);
}

template <typename Offset>
Result<size_t> FsstDecoder::DecodeStrings(std::span<const uint8_t> data,
                                          std::span<const Offset> offsets, uint8_t* out,
                                          size_t out_capacity, Offset* out_offsets,
                                          Offset out_base) const {
  const size_t bad = FirstBadOffset(offsets, data.size());
  if (bad != kOffsetsOk) {
    if (offsets.empty()) return Status::Corruption("fsst: no offsets (need n + 1 entries)");
    return Status::Corruption(
        fmt::format("fsst: offset {} = {} is decreasing or beyond the {} data bytes", bad,
                    static_cast<uint64_t>(offsets[bad]), data.size()));
  }
  const size_t first = static_cast<size_t>(offsets.front());
  const size_t last = static_cast<size_t>(offsets.back());
  const size_t bound = MaxDecodedSize(last - first);
  if (out_capacity < bound + kFsstDecodeSlack) {
    return Status::InvalidInput(fmt::format(
        "fsst: output capacity {} is below the bound {} + {} slack for {} compressed bytes",
        out_capacity, bound, kFsstDecodeSlack, last - first));
  }
  const uint64_t max_offset = std::numeric_limits<Offset>::max();
  out_offsets[0] = out_base;
  if (!compressed_) {
    if (last - first > 0) std::memcpy(out, data.data() + first, last - first);
    for (size_t i = 1; i < offsets.size(); ++i) {
      const uint64_t end = static_cast<uint64_t>(out_base) + (offsets[i] - first);
      if (end > max_offset) {
        return Status::Corruption(
            fmt::format("fsst: decoded offset {} does not fit the offset type", end));
      }
      out_offsets[i] = static_cast<Offset>(end);
    }
    return last - first;
  }
  uint8_t* o = out;
  for (size_t i = 0; i + 1 < offsets.size(); ++i) {
    const uint8_t* begin = data.data() + static_cast<size_t>(offsets[i]);
    const uint8_t* end = data.data() + static_cast<size_t>(offsets[i + 1]);
    uint8_t* next = DecodeRun(begin, end, o);
    if (next == nullptr) {
      return DescribeError(std::span<const uint8_t>(begin, end), i,
                           static_cast<size_t>(offsets[i]));
    }
    o = next;
    const uint64_t out_end = static_cast<uint64_t>(out_base) + static_cast<uint64_t>(o - out);
    if (out_end > max_offset) {
      return Status::Corruption(
          fmt::format("fsst: decoded offset {} does not fit the offset type", out_end));
    }
    out_offsets[i + 1] = static_cast<Offset>(out_end);
  }
  return static_cast<size_t>(o - out);
}

template <typename Offset>
Status FsstDecoder::DecodeStrings(std::span<const uint8_t> data, std::span<const Offset> offsets,
                                  std::vector<uint8_t>* out_bytes,
                                  std::vector<Offset>* out_offsets) const {
  if (FirstBadOffset(offsets, data.size()) != kOffsetsOk) {
    // Reports the bad offset (it is checked before anything is written).
    return DecodeStrings<Offset>(data, offsets, nullptr, 0, nullptr).status();
  }
  const size_t bound =
      MaxDecodedSize(static_cast<size_t>(offsets.back()) - static_cast<size_t>(offsets.front()));
  out_bytes->resize(bound + kFsstDecodeSlack);
  out_offsets->resize(offsets.size());
  QV_ASSIGN_OR_RETURN(size_t n, DecodeStrings<Offset>(data, offsets, out_bytes->data(),
                                                      out_bytes->size(), out_offsets->data(), 0));
  out_bytes->resize(n);
  return Status::OK();
}

// ------------------------------------------------------------------------------------------
// Encoder: symbol table construction (FSST's buildSymbolTable) and compression.

namespace {

constexpr size_t kSampleLine = 512;  // sample chunks are at most this long (as in libfsst)
constexpr size_t kHashSlots = 1024;
constexpr uint16_t kNoCode = 0xFFFF;
constexpr size_t kMaxCodes = 256 + kFsstMaxSymbols;

inline uint64_t Mix(uint64_t w) {
  const uint64_t x = w * 2971215073ull;
  return x ^ (x >> 15);
}
inline size_t HashSlot(uint64_t w) { return Mix(w & 0xFFFFFF) & (kHashSlots - 1); }

struct Sym {
  uint64_t val = 0;  // the bytes, little-endian, zero above len
  uint32_t len = 0;  // 1..8
  bool operator==(const Sym& o) const { return val == o.val && len == o.len; }
};
struct SymHash {
  size_t operator()(const Sym& s) const { return Mix(s.val ^ (uint64_t{s.len} << 59)); }
};

Sym Concat(const Sym& a, const Sym& b) {
  const uint32_t len = std::min<uint32_t>(a.len + b.len, kFsstMaxSymbolLength);
  const uint64_t val = (a.val | (b.val << (8 * a.len))) & SymbolMask(len);  // a.len < 8
  return Sym{val, len};
}

// Loads the (up to) 8 bytes at p, zero-padded when fewer than 8 remain.
inline uint64_t LoadWord(const uint8_t* p, size_t rem) {
  if (rem >= 8) return LoadLE<uint64_t>(p);
  uint64_t w = 0;
  std::memcpy(&w, p, rem);
  return w;
}

// A symbol table during training or for compression. Codes 0..255 stand for the byte itself
// (an escape when compressing); code 256 + i is symbol i. Lookup is FSST's: symbols of 3+ bytes
// live in a hash table keyed by their first three bytes (one per slot: a colliding symbol is not
// added), 2-byte symbols in a 64 Ki table, 1-byte symbols in a 256-entry table.
class SymbolTable {
 public:
  SymbolTable() : short_code_(65536, kNoCode) { Clear(); }

  void Clear() {
    for (size_t b = 0; b < 256; ++b) byte_code_[b] = static_cast<uint16_t>(b);
    std::fill(short_code_.begin(), short_code_.end(), kNoCode);
    for (auto& s : slots_) s = Slot{};
    syms_.clear();
  }

  bool Add(const Sym& s) {
    if (syms_.size() >= kFsstMaxSymbols) return false;
    const auto code = static_cast<uint16_t>(256 + syms_.size());
    if (s.len == 1) {
      byte_code_[s.val & 0xFF] = code;
    } else if (s.len == 2) {
      short_code_[s.val & 0xFFFF] = code;
    } else {
      Slot& slot = slots_[HashSlot(s.val)];
      if (slot.len != 0) return false;
      slot = Slot{s.val, code, static_cast<uint8_t>(s.len)};
    }
    syms_.push_back(s);
    return true;
  }

  // The longest symbol at a position with `rem` >= 1 bytes left, whose next bytes are `w`
  // (zero-padded). Sets *len to the bytes it covers.
  inline uint16_t Find(uint64_t w, size_t rem, uint32_t* len) const {
    if (rem >= 3) {
      const Slot& slot = slots_[HashSlot(w)];
      if (slot.len != 0 && slot.len <= rem && slot.val == (w & SymbolMask(slot.len))) {
        *len = slot.len;
        return slot.code;
      }
    }
    if (rem >= 2) {
      const uint16_t c = short_code_[w & 0xFFFF];
      if (c != kNoCode) {
        *len = 2;
        return c;
      }
    }
    *len = 1;
    return byte_code_[w & 0xFF];
  }

  Sym SymOf(uint16_t code) const {
    return code < 256 ? Sym{code, 1} : syms_[static_cast<size_t>(code - 256)];
  }
  size_t num_codes() const { return 256 + syms_.size(); }
  const std::vector<Sym>& syms() const { return syms_; }

 private:
  struct Slot {
    uint64_t val = 0;
    uint16_t code = 0;
    uint8_t len = 0;  // 0 = free
  };
  std::array<uint16_t, 256> byte_code_{};
  std::vector<uint16_t> short_code_;
  std::array<Slot, kHashSlots> slots_{};
  std::vector<Sym> syms_;
};

struct Line {
  const uint8_t* data;
  size_t size;
};

// FSST's makeSample: all strings if they total at most the target, else pseudo-random chunks
// (at most 512 bytes each) of pseudo-randomly chosen non-empty strings, up to the target.
// Strings longer than 512 bytes are split into lines.
template <typename GetFn>
std::vector<Line> MakeSample(size_t n, const GetFn& get) {
  std::vector<Line> lines;
  size_t total = 0;
  for (size_t i = 0; i < n && total <= kFsstSampleBytes; ++i) total += get(i).size();
  if (total <= kFsstSampleBytes) {
    for (size_t i = 0; i < n; ++i) {
      std::string_view s = get(i);
      for (size_t at = 0; at < s.size(); at += kSampleLine) {
        lines.push_back(Line{reinterpret_cast<const uint8_t*>(s.data()) + at,
                             std::min(kSampleLine, s.size() - at)});
      }
    }
    return lines;
  }
  size_t sampled = 0;
  uint64_t rnd = Mix(4637947);
  while (sampled < kFsstSampleBytes) {
    rnd = Mix(rnd);
    size_t idx = rnd % n;
    while (get(idx).empty()) idx = idx + 1 == n ? 0 : idx + 1;  // total > 0: terminates
    std::string_view s = get(idx);
    const size_t chunks = 1 + (s.size() - 1) / kSampleLine;
    rnd = Mix(rnd);
    const size_t at = kSampleLine * (rnd % chunks);
    const size_t len = std::min({s.size() - at, kSampleLine, kFsstSampleBytes - sampled});
    lines.push_back(Line{reinterpret_cast<const uint8_t*>(s.data()) + at, len});
    sampled += len;
  }
  return lines;
}

// Pseudo-random 1..128 per sample line: early rounds only look at lines with rnd <= frac.
inline uint64_t Rnd128(size_t i) { return 1 + (Mix((i + 1) * 0xC5A308DEDull) & 127); }

struct Counters {
  std::vector<uint16_t> count1 = std::vector<uint16_t>(kMaxCodes, 0);
  std::vector<uint16_t> count2 = std::vector<uint16_t>(kMaxCodes * kMaxCodes, 0);
  void Clear() {
    std::fill(count1.begin(), count1.end(), 0);
    std::fill(count2.begin(), count2.end(), 0);
  }
  static void Inc(uint16_t& c) { c = static_cast<uint16_t>(c + (c != 0xFFFF)); }
};

// Compresses (a frac/128 subset of) the sample with `st`, counting how often each code and each
// pair of consecutive codes occurs; returns the bytes saved.
int64_t CompressCount(const SymbolTable& st, const std::vector<Line>& lines, int frac,
                      Counters* counters) {
  int64_t gain = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (frac < 128 && Rnd128(i) > static_cast<uint64_t>(frac)) continue;
    const uint8_t* cur = lines[i].data;
    const uint8_t* end = cur + lines[i].size;
    if (cur == end) continue;
    const uint8_t* start = cur;
    uint32_t len1 = 0;
    uint16_t code1 = st.Find(LoadWord(cur, end - cur), end - cur, &len1);
    cur += len1;
    gain += static_cast<int64_t>(len1) - 1 - (code1 < 256 ? 1 : 0);
    while (true) {
      Counters::Inc(counters->count1[code1]);
      // Alternatively the symbol's first byte alone (single bytes are not counted twice).
      if (len1 != 1) Counters::Inc(counters->count1[*start]);
      if (cur == end) break;
      start = cur;
      uint32_t len2 = 0;
      const uint16_t code2 = st.Find(LoadWord(cur, end - cur), end - cur, &len2);
      cur += len2;
      gain += static_cast<int64_t>(len2) - 1 - (code2 < 256 ? 1 : 0);
      if (frac < 128) {  // pairs are not needed in the final round
        Counters::Inc(counters->count2[code1 * kMaxCodes + code2]);
        // Alternatively extend with the next byte only (not counted twice for single bytes).
        if (len2 > 1) Counters::Inc(counters->count2[code1 * kMaxCodes + *start]);
      }
      code1 = code2;
      len1 = len2;
    }
  }
  return gain;
}

// Builds the next table from the counts: every code and every concatenation of two codes is a
// candidate with gain = count x length (single bytes are boosted 8x, which lowers the escape
// rate); the 255 candidates with the highest gain win.
void MakeTable(SymbolTable* st, const Counters& counters, int frac) {
  std::unordered_map<Sym, uint64_t, SymHash> candidates;
  const uint64_t min_count = static_cast<uint64_t>(5 * frac / 128);
  auto add = [&](const Sym& s, uint64_t count) {
    if (count < min_count) return;
    candidates[s] += count * s.len;
  };
  const size_t codes = st->num_codes();
  for (size_t pos1 = 0; pos1 < codes; ++pos1) {
    const uint16_t cnt1 = counters.count1[pos1];
    if (cnt1 == 0) continue;
    const Sym s1 = st->SymOf(static_cast<uint16_t>(pos1));
    add(s1, (s1.len == 1 ? 8u : 1u) * uint64_t{cnt1});
    if (frac >= 128 || s1.len == kFsstMaxSymbolLength) continue;
    const uint16_t* row = counters.count2.data() + pos1 * kMaxCodes;
    for (size_t pos2 = 0; pos2 < codes; ++pos2) {
      if (row[pos2] == 0) continue;
      add(Concat(s1, st->SymOf(static_cast<uint16_t>(pos2))), row[pos2]);
    }
  }
  std::vector<std::pair<Sym, uint64_t>> ranked(candidates.begin(), candidates.end());
  std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
    if (a.second != b.second) return a.second > b.second;
    if (a.first.val != b.first.val) return a.first.val < b.first.val;
    return a.first.len < b.first.len;
  });
  st->Clear();
  for (const auto& [sym, gain] : ranked) {
    if (st->syms().size() >= kFsstMaxSymbols) break;
    st->Add(sym);  // a 3+ byte symbol whose hash slot is taken is skipped
  }
}

// The trained encoder: its table and header fields.
struct EncoderState {
  bool compressed = true;
  SymbolTable table;  // symbols in final code order: code 256 + i is emitted as byte i
  uint8_t suffix_lim = 0;
  uint8_t terminator = 0;

  size_t Compress(const uint8_t* in, size_t n, uint8_t* out) const {
    if (!compressed) {
      if (n > 0) std::memcpy(out, in, n);
      return n;
    }
    const uint8_t* end = in + n;
    uint8_t* o = out;
    while (in < end) {
      const size_t rem = static_cast<size_t>(end - in);
      uint32_t len = 0;
      const uint16_t code = table.Find(LoadWord(in, rem), rem, &len);
      if (code >= 256) {
        *o++ = static_cast<uint8_t>(code - 256);
      } else {
        o[0] = kFsstEscape;
        o[1] = static_cast<uint8_t>(code);
        o += 2;
      }
      in += len;
    }
    return static_cast<size_t>(o - out);
  }
};

// Orders the trained symbols the way FSST's finalize does (2-byte symbols that are a prefix of a
// longer symbol first — their count is the "suffix limit" — then the other 2-byte symbols, then
// lengths 3..8, then single bytes) and builds the compression table in that code order.
EncoderState Finalize(const std::vector<Sym>& syms, uint8_t terminator) {
  std::vector<Sym> ordered;
  ordered.reserve(syms.size());
  size_t suffix_lim = 0;
  for (const Sym& s : syms) {
    if (s.len != 2) continue;
    const bool has_suffix = std::any_of(syms.begin(), syms.end(), [&](const Sym& t) {
      return t.len > 2 && (t.val & 0xFFFF) == s.val;
    });
    if (has_suffix) {
      ordered.push_back(s);
      ++suffix_lim;
    }
  }
  for (const Sym& s : syms) {
    if (s.len == 2 && std::find(ordered.begin(), ordered.end(), s) == ordered.end()) {
      ordered.push_back(s);
    }
  }
  for (uint32_t len : {3u, 4u, 5u, 6u, 7u, 8u, 1u}) {
    for (const Sym& s : syms) {
      if (s.len == len) ordered.push_back(s);
    }
  }
  EncoderState state;
  state.compressed = true;
  for (const Sym& s : ordered) state.table.Add(s);  // no collisions: these all fit before
  state.suffix_lim = static_cast<uint8_t>(suffix_lim);
  state.terminator = terminator;
  return state;
}

template <typename GetFn>
EncoderState TrainImpl(size_t n, const GetFn& get) {
  const std::vector<Line> sample = MakeSample(n, get);
  // FSST's terminator: the least frequent byte of the sample (only recorded in the header).
  std::array<size_t, 256> histo{};
  for (const Line& l : sample) {
    for (size_t i = 0; i < l.size; ++i) ++histo[l.data[i]];
  }
  const auto terminator =
      static_cast<uint8_t>(std::min_element(histo.begin(), histo.end()) - histo.begin());

  auto st = std::make_unique<SymbolTable>();
  auto counters = std::make_unique<Counters>();
  std::vector<Sym> best;
  int64_t best_gain = std::numeric_limits<int64_t>::min();
  for (int frac = 8;; frac += 30) {
    counters->Clear();
    const int64_t gain = CompressCount(*st, sample, frac, counters.get());
    if (gain >= best_gain) {
      best_gain = gain;
      best = st->syms();
    }
    if (frac >= 128) break;
    MakeTable(st.get(), *counters, frac);
  }
  return Finalize(best, terminator);
}

}  // namespace

struct FsstEncoder::Impl : EncoderState {
  explicit Impl(EncoderState state) : EncoderState(std::move(state)) {}
};

FsstEncoder::FsstEncoder(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
FsstEncoder::FsstEncoder(FsstEncoder&&) noexcept = default;
FsstEncoder& FsstEncoder::operator=(FsstEncoder&&) noexcept = default;
FsstEncoder::~FsstEncoder() = default;

template <typename Offset>
Result<FsstEncoder> FsstEncoder::Train(std::span<const uint8_t> data,
                                       std::span<const Offset> offsets) {
  const size_t bad = FirstBadOffset(offsets, data.size());
  if (bad != kOffsetsOk) {
    return Status::InvalidInput(
        fmt::format("fsst: training offset {} is missing, decreasing or out of range", bad));
  }
  auto get = [&](size_t i) {
    return std::string_view(reinterpret_cast<const char*>(data.data()) + offsets[i],
                            static_cast<size_t>(offsets[i + 1] - offsets[i]));
  };
  return FsstEncoder(std::make_unique<Impl>(TrainImpl(offsets.size() - 1, get)));
}

FsstEncoder FsstEncoder::Train(std::span<const std::string_view> strings) {
  return FsstEncoder(
      std::make_unique<Impl>(TrainImpl(strings.size(), [&](size_t i) { return strings[i]; })));
}

FsstEncoder FsstEncoder::Uncompressed() {
  EncoderState state;
  state.compressed = false;
  return FsstEncoder(std::make_unique<Impl>(std::move(state)));
}

bool FsstEncoder::compressed() const { return impl_->compressed; }
int FsstEncoder::num_symbols() const { return static_cast<int>(impl_->table.syms().size()); }

std::array<uint8_t, kFsstSymbolTableBytes> FsstEncoder::SerializeTable() const {
  std::array<uint8_t, kFsstSymbolTableBytes> out{};
  const auto& syms = impl_->table.syms();
  const uint64_t header = (uint64_t{kFsstMagic} << 32) |
                          (uint64_t{impl_->compressed ? 1u : 0u} << 24) |
                          (uint64_t{impl_->suffix_lim} << 16) | (uint64_t{impl_->terminator} << 8) |
                          uint64_t{syms.size() & 0xFF};
  StoreLE<uint64_t>(out.data(), header);
  for (size_t i = 0; i < syms.size(); ++i) {
    StoreLE<uint64_t>(out.data() + 8 + 8 * i, syms[i].val);
    out[LensOffset(syms.size()) + i] = static_cast<uint8_t>(syms[i].len);
  }
  return out;
}

size_t FsstEncoder::CompressString(std::span<const uint8_t> in, uint8_t* out) const {
  return impl_->Compress(in.data(), in.size(), out);
}

template <typename Offset>
Status FsstEncoder::CompressStrings(std::span<const uint8_t> data, std::span<const Offset> offsets,
                                    std::vector<uint8_t>* out_bytes,
                                    std::vector<Offset>* out_offsets) const {
  const size_t bad = FirstBadOffset(offsets, data.size());
  if (bad != kOffsetsOk) {
    return Status::InvalidInput(
        fmt::format("fsst: offset {} is missing, decreasing or out of range", bad));
  }
  const size_t first = static_cast<size_t>(offsets.front());
  const size_t last = static_cast<size_t>(offsets.back());
  out_bytes->resize(MaxCompressedSize(last - first));
  out_offsets->resize(offsets.size());
  (*out_offsets)[0] = 0;
  size_t pos = 0;
  for (size_t i = 0; i + 1 < offsets.size(); ++i) {
    const auto begin = static_cast<size_t>(offsets[i]);
    const auto len = static_cast<size_t>(offsets[i + 1] - offsets[i]);
    pos += impl_->Compress(data.data() + begin, len, out_bytes->data() + pos);
    if (pos > std::numeric_limits<Offset>::max()) {
      return Status::InvalidInput(
          fmt::format("fsst: compressed offset {} does not fit the offset type", pos));
    }
    (*out_offsets)[i + 1] = static_cast<Offset>(pos);
  }
  out_bytes->resize(pos);
  return Status::OK();
}

#define QV_FSST_INSTANTIATE(Offset)                                                                \
  template Result<size_t> FsstDecoder::DecodeStrings<Offset>(                                      \
      std::span<const uint8_t>, std::span<const Offset>, uint8_t*, size_t, Offset*, Offset) const; \
  template Status FsstDecoder::DecodeStrings<Offset>(                                              \
      std::span<const uint8_t>, std::span<const Offset>, std::vector<uint8_t>*,                    \
      std::vector<Offset>*) const;                                                                 \
  template Result<FsstEncoder> FsstEncoder::Train<Offset>(std::span<const uint8_t>,                \
                                                          std::span<const Offset>);                \
  template Status FsstEncoder::CompressStrings<Offset>(                                            \
      std::span<const uint8_t>, std::span<const Offset>, std::vector<uint8_t>*,                    \
      std::vector<Offset>*) const;
QV_FSST_INSTANTIATE(uint32_t)
QV_FSST_INSTANTIATE(uint64_t)
#undef QV_FSST_INSTANTIATE

}  // namespace quiver::format::codecs
