#include "cli/cli_util.h"

#include <cerrno>
#include <cstdio>

#include <fcntl.h>
#include <unistd.h>

#include "arrow/ipc/io.h"
#include "arrow/ipc/reader.h"
#include "common/numbers.h"
#include "store/store_uri.h"

namespace quiver::cli {

int Fail(const Status& status) {
  std::fprintf(stderr, "quiver: error: %s\n", status.ToString().c_str());
  return 1;
}

int UsageError(const Status& status) {
  std::fprintf(stderr, "quiver: error: %s\n", status.ToString().c_str());
  return kUsageExitCode;
}

void CheckIntegerOptions(CLI::App& app) {
  for (CLI::Option* option : app.get_options()) {
    // The type name before any validator's description is appended ("UINT:..." otherwise).
    std::string type = option->get_type_name();
    type = type.substr(0, type.find(':'));
    if (type != "INT" && type != "UINT") continue;
    const bool is_signed = type == "INT";
    option->check(CLI::Validator(
        [is_signed](std::string& text) -> std::string {
          Status s = is_signed ? ParseInt64(text).status() : ParseUint64(text).status();
          return s.ok() ? std::string() : s.message();
        },
        "", "decimal integer"));
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    CheckIntegerOptions(*sub);
  }
}

Result<std::shared_ptr<ObjectStore>> OpenExistingStore(const std::string& uri) {
  OpenStoreOptions options;
  options.create_if_missing = false;
  return OpenStore(uri, options);
}

namespace {

// The reader, and the file it reads, closed after it.
class IpcInput final : public arrow::BatchStream {
 public:
  IpcInput(int fd, std::unique_ptr<arrow::BatchStream> reader, std::string from)
      : fd_(fd), reader_(std::move(reader)), from_(std::move(from)) {}
  ~IpcInput() override {
    reader_.reset();
    if (fd_ != STDIN_FILENO) ::close(fd_);
  }
  const std::shared_ptr<const arrow::Schema>& schema() const override { return reader_->schema(); }
  Result<std::optional<arrow::RecordBatch>> Next() override {
    auto batch = reader_->Next();
    if (!batch.ok()) return batch.status().WithContext(from_);
    return batch;
  }

 private:
  int fd_;
  std::unique_ptr<arrow::BatchStream> reader_;
  std::string from_;
};

}  // namespace

Result<std::unique_ptr<arrow::BatchStream>> OpenIpcInput(const std::string& from) {
  const int fd = from == "-" ? STDIN_FILENO : ::open(from.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return StatusFromErrno(errno, "opening " + from);
  auto reader = arrow::ipc::StreamReader::Open(std::make_unique<arrow::ipc::FdInputStream>(fd));
  if (!reader.ok()) {
    if (fd != STDIN_FILENO) ::close(fd);
    return reader.status().WithContext(from);
  }
  return std::unique_ptr<arrow::BatchStream>(new IpcInput(fd, std::move(*reader), from));
}

}  // namespace quiver::cli
