#include "common/json.h"

#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace quiver {

namespace {

// Builds the value from nlohmann's SAX events, as nlohmann's own DOM parser does, with the
// depth bound and the duplicate-key check added. `open_` holds the containers being filled,
// innermost last: only the innermost one is ever inserted into, so the pointers to the others
// (elements of their parents) stay valid.
template <typename Json>
class BoundedBuilder : public nlohmann::json_sax<Json> {
 public:
  using Base = nlohmann::json_sax<Json>;
  using typename Base::binary_t;
  using typename Base::number_float_t;
  using typename Base::number_integer_t;
  using typename Base::number_unsigned_t;
  using typename Base::string_t;

  explicit BoundedBuilder(const JsonLimits& limits) : limits_(limits) {}

  bool null() override { return Put(Json(nullptr)) != nullptr; }
  bool boolean(bool v) override { return Put(Json(v)) != nullptr; }
  bool number_integer(number_integer_t v) override { return Put(Json(v)) != nullptr; }
  bool number_unsigned(number_unsigned_t v) override { return Put(Json(v)) != nullptr; }
  bool number_float(number_float_t v, const string_t& /*text*/) override {
    return Put(Json(v)) != nullptr;
  }
  bool string(string_t& v) override { return Put(Json(std::move(v))) != nullptr; }
  bool binary(binary_t& v) override { return Put(Json::binary(std::move(v))) != nullptr; }

  bool start_object(std::size_t /*elements*/) override { return Open(Json::object()); }
  bool key(string_t& k) override {
    Json& object = *open_.back();
    if (limits_.reject_duplicate_keys && object.contains(k)) {
      error_ =
          Status::InvalidInput(fmt::format("duplicate key '{}' in a JSON object", Printable(k)));
      return false;
    }
    next_ = &object[std::move(k)];
    return true;
  }
  bool end_object() override { return Close(); }
  bool start_array(std::size_t /*elements*/) override { return Open(Json::array()); }
  bool end_array() override { return Close(); }

  bool parse_error(std::size_t /*position*/, const std::string& /*last_token*/,
                   const nlohmann::detail::exception& ex) override {
    std::string_view what = ex.what();
    // "[json.exception.parse_error.101] parse error at line 1, column 2: ...": the tag is noise.
    if (size_t tag = what.find("] "); !what.empty() && what.front() == '[' && tag != what.npos) {
      what.remove_prefix(tag + 2);
    }
    error_ = Status::InvalidInput(fmt::format("not valid JSON: {}", what));
    return false;
  }

  Result<Json> Finish(bool parsed) {
    if (!error_.ok()) return error_;
    if (!parsed) return Status::InvalidInput("not valid JSON");
    return std::move(root_);
  }

 private:
  // A key quoted in an error message: bounded, so that a megabyte key does not become a
  // megabyte message.
  static std::string Printable(const string_t& k) {
    constexpr size_t kMax = 64;
    return k.size() <= kMax ? std::string(k) : std::string(k.substr(0, kMax)) + "...";
  }

  // Places `v` where the text puts it: the root, the next array element, or the value of the
  // key just read. Returns where it went.
  Json* Put(Json&& v) {
    if (++values_ > limits_.max_values) {
      error_ = Status::InvalidInput(
          fmt::format("JSON text holds more than {} values", limits_.max_values));
      return nullptr;
    }
    if (open_.empty()) {
      root_ = std::move(v);
      return &root_;
    }
    Json& top = *open_.back();
    if (top.is_array()) {
      top.push_back(std::move(v));
      return &top.back();
    }
    *next_ = std::move(v);
    return next_;
  }

  bool Open(Json&& container) {
    if (open_.size() >= limits_.max_depth) {
      error_ =
          Status::InvalidInput(fmt::format("JSON nested deeper than {} levels", limits_.max_depth));
      return false;
    }
    Json* opened = Put(std::move(container));
    if (opened == nullptr) return false;
    open_.push_back(opened);
    return true;
  }

  bool Close() {
    open_.pop_back();
    return true;
  }

  JsonLimits limits_;
  size_t values_ = 0;
  Json root_;
  std::vector<Json*> open_;
  Json* next_ = nullptr;
  Status error_;
};

template <typename Json>
Result<Json> Parse(std::string_view text, const JsonLimits& limits) {
  BoundedBuilder<Json> builder(limits);
  // The SAX parser reports every error through parse_error() and throws nothing itself; the
  // catch is for an exception a future nlohmann version might raise, which must not leave here.
  bool parsed = false;
  try {
    parsed = Json::sax_parse(text.data(), text.data() + text.size(), &builder);
  } catch (const std::exception& e) {
    return Status::InvalidInput(fmt::format("not valid JSON: {}", e.what()));
  }
  return builder.Finish(parsed);
}

}  // namespace

Result<nlohmann::json> ParseJson(std::string_view text, const JsonLimits& limits) {
  return Parse<nlohmann::json>(text, limits);
}

std::optional<int64_t> JsonToInt64(const nlohmann::json& value) {
  if (value.is_number_unsigned()) {
    const uint64_t u = value.get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return std::nullopt;
    return static_cast<int64_t>(u);
  }
  if (value.is_number_integer()) return value.get<int64_t>();
  return std::nullopt;
}

Result<nlohmann::ordered_json> ParseOrderedJson(std::string_view text, const JsonLimits& limits) {
  return Parse<nlohmann::ordered_json>(text, limits);
}

}  // namespace quiver
