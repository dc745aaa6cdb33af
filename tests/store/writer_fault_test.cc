// Failures in the middle of a streaming write (ObjectStore::OpenWriter): whichever step fails, the
// key afterwards holds nothing, the complete old object, or (only once the new bytes were
// published) the complete new object; nothing half-written is ever listed, and Sweep removes
// whatever temp data a simulated crash left.
#include <ostream>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "store/fault_store.h"
#include "store/key.h"
#include "store/local_store.h"
#include "store/memory_store.h"
#include "store_test_util.h"

namespace quiver::testing {
namespace {

const std::string kOld(300 * 1024, 'o');
constexpr size_t kChunk = 256 * 1024;
constexpr int kChunks = 4;
const std::string kNew(kChunk* kChunks, 'n');

// A backend under test, with the sync points it reaches; the directory is used by `local` only.
struct Backend {
  std::string name;
  bool local;
};

void PrintTo(const Backend& backend, std::ostream* os) { *os << backend.name; }

std::shared_ptr<ObjectStore> Make(const Backend& backend, const std::string& dir,
                                  SyncPoints* points) {
  if (!backend.local) return MemoryObjectStore::Create({.sync_points = points});
  LocalStoreOptions options;
  options.sync_points = points;
  auto store = LocalObjectStore::Open(dir, options);
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  return store.ok() ? *store : nullptr;
}

int CountTempFiles(const Backend& backend, const std::string& dir) {
  if (!backend.local) return 0;
  int n = CountFiles(fmt::format("{}/{}/{}", dir, kReservedSegment, kTempSubdir));
  return n < 0 ? 0 : n;  // -1: the reserved area was never created
}

PutOptions OptionsFor(ObjectStore& store, PutMode mode) {
  if (mode != PutMode::kIfMatch) return PutOptions{mode, {}};
  auto head = store.Head("k");
  EXPECT_TRUE(head.ok()) << head.status().ToString();
  return PutOptions::IfMatch(head.ok() ? head->etag : "missing");
}

// The whole key space must be: "k" with `expected` bytes, or nothing at all.
void ExpectOnly(ObjectStore& store, const std::string* expected) {
  auto all = store.ListAll("");
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  auto got = store.Get("k");
  if (expected == nullptr) {
    EXPECT_TRUE(all->empty());
    EXPECT_TRUE(got.status().IsNotFound()) << got.status().ToString();
    return;
  }
  ASSERT_EQ(all->size(), 1u);
  EXPECT_EQ((*all)[0].key, "k");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_TRUE(got->data == *expected) << "size " << got->data.size();
}

struct Step {
  const char* point;
  bool published;            // the new bytes are visible once Finish stops here
  bool temp_left_by_rename;  // local: a temp file remains (overwrite / if-match)
  bool temp_left_by_link;    // local: a temp file remains (create-only: link keeps the temp name)
};

const Step kSteps[] = {
    {store_points::kPutTempWritten, false, true, true},
    {store_points::kPutTempSynced, false, true, true},
    {store_points::kPutBeforePublish, false, true, true},
    {store_points::kPutAfterPublish, true, false, true},
    {store_points::kPutDone, true, false, false},
};

const Backend kBackends[] = {{"memory", false}, {"local", true}};

using Param = std::tuple<Backend, PutMode, int /*step index*/>;

class WriterSyncPointTest : public ::testing::TestWithParam<Param> {};

// A sync point that returns an error stops Finish as a crash would (no cleanup).
TEST_P(WriterSyncPointTest, FinishStoppedAtEachStepLeavesOldOrCompleteNewBytes) {
  const auto& [backend, mode, step_index] = GetParam();
  const Step& step = kSteps[step_index];
  TempDir dir;
  SyncPoints points;
  auto store = Make(backend, dir.path(), &points);
  ASSERT_NE(store, nullptr);
  const bool had_old = mode != PutMode::kCreateOnly;
  if (had_old) {
    ASSERT_TRUE(store->Put("k", kOld).ok());
  }

  auto writer = store->OpenWriter("k", OptionsFor(*store, mode));
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  for (int i = 0; i < kChunks; ++i) {
    ASSERT_TRUE((*writer)->Append(kNew.substr(i * kChunk, kChunk)).ok());
  }
  const Status stop(StatusCode::kInternal, "stopped by the test", Subcode::kInjected);
  points.Set(step.point, [&stop](std::string_view) { return stop; });
  auto finished = (*writer)->Finish();
  EXPECT_TRUE(finished.status() == stop) << finished.status().ToString();
  points.ClearAll();

  const std::string* expected = step.published ? &kNew : had_old ? &kOld : nullptr;
  ExpectOnly(*store, expected);
  writer->reset();  // destroying the stopped writer changes nothing
  ExpectOnly(*store, expected);

  // What the "crash" left is temp data only, and Sweep removes exactly that.
  const bool temp_left = backend.local && (mode == PutMode::kCreateOnly ? step.temp_left_by_link
                                                                        : step.temp_left_by_rename);
  EXPECT_EQ(CountTempFiles(backend, dir.path()), temp_left ? 1 : 0);
  auto swept = store->Sweep(Duration(0));
  ASSERT_TRUE(swept.ok()) << swept.status().ToString();
  EXPECT_EQ(swept->files_removed, temp_left ? 1u : 0u);
  EXPECT_EQ(CountTempFiles(backend, dir.path()), 0);
  ExpectOnly(*store, expected);
}

INSTANTIATE_TEST_SUITE_P(
    Steps, WriterSyncPointTest,
    ::testing::Combine(::testing::ValuesIn(kBackends),
                       ::testing::Values(PutMode::kOverwrite, PutMode::kCreateOnly,
                                         PutMode::kIfMatch),
                       ::testing::Range(0, static_cast<int>(std::size(kSteps)))),
    [](const ::testing::TestParamInfo<Param>& param_info) {
      std::string point = kSteps[std::get<2>(param_info.param)].point;
      point = point.substr(point.rfind('.') + 1);
      return std::get<0>(param_info.param).name + "_" +
             std::string(PutModeName(std::get<1>(param_info.param))) + "_" + point;
    });

class WriterFaultTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    backend_ = Make(GetParam(), dir_.path(), &points_);
    ASSERT_NE(backend_, nullptr);
    faults_ = std::make_shared<FaultInjectingStore>(backend_, &points_);
  }
  int TempFiles() const { return CountTempFiles(GetParam(), dir_.path()); }

  TempDir dir_;
  SyncPoints points_;
  std::shared_ptr<ObjectStore> backend_;
  std::shared_ptr<FaultInjectingStore> faults_;
};

INSTANTIATE_TEST_SUITE_P(Backends, WriterFaultTest, ::testing::ValuesIn(kBackends),
                         [](const ::testing::TestParamInfo<Backend>& param_info) {
                           return param_info.param.name;
                         });

TEST_P(WriterFaultTest, AFailedAppendClosesTheWriterAndDiscardsItsBytes) {
  for (PutMode mode : {PutMode::kOverwrite, PutMode::kCreateOnly, PutMode::kIfMatch}) {
    SCOPED_TRACE(PutModeName(mode));
    ASSERT_TRUE(backend_->Delete("k").ok());
    const bool had_old = mode != PutMode::kCreateOnly;
    if (had_old) {
      ASSERT_TRUE(backend_->Put("k", kOld).ok());
    }
    faults_->FailNthAppend(3, Status::IOError("no space left on device", true));
    auto writer = faults_->OpenWriter("k", OptionsFor(*faults_, mode));
    ASSERT_TRUE(writer.ok());
    EXPECT_TRUE((*writer)->Append(kNew.substr(0, kChunk)).ok());
    EXPECT_TRUE((*writer)->Append(kNew.substr(kChunk, kChunk)).ok());
    Status failed = (*writer)->Append(kNew.substr(2 * kChunk, kChunk));
    EXPECT_TRUE(failed.IsIOError()) << failed.ToString();
    EXPECT_EQ((*writer)->bytes_written(), 2 * kChunk);
    EXPECT_EQ(TempFiles(), 0) << "the temp data goes at once, not when the writer is destroyed";
    Status again = (*writer)->Append("x");
    EXPECT_TRUE(again.IsInvalidInput()) << again.ToString();
    EXPECT_NE(again.message().find("no space left"), std::string::npos) << again.ToString();
    EXPECT_TRUE((*writer)->Finish().status().IsInvalidInput());
    ExpectOnly(*faults_, had_old ? &kOld : nullptr);
  }
  EXPECT_EQ(faults_->fired(), 3u);
}

TEST_P(WriterFaultTest, AFailedFinishPublishesNothingAndCleansUp) {
  ASSERT_TRUE(backend_->Put("k", kOld).ok());
  faults_->FailNth(StoreOp::kPut, 1, Status::ServiceUnavailable("throttled"));
  auto writer = faults_->OpenWriter("k");
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE((*writer)->Append(kNew).ok());
  auto finished = (*writer)->Finish();
  EXPECT_EQ(finished.status().code(), StatusCode::kServiceUnavailable);
  EXPECT_EQ(TempFiles(), 0);
  ExpectOnly(*faults_, &kOld);
  // The rule is spent: the next writer publishes.
  auto next = faults_->OpenWriter("k");
  ASSERT_TRUE(next.ok());
  ASSERT_TRUE((*next)->Append(kNew).ok());
  ASSERT_TRUE((*next)->Finish().ok());
  ExpectOnly(*faults_, &kNew);
  EXPECT_EQ(TempFiles(), 0);
}

TEST_P(WriterFaultTest, ACrashBeforePublishLeavesTheOldObjectAndOnlySweepableTempData) {
  ASSERT_TRUE(backend_->Put("k", kOld).ok());
  ASSERT_TRUE(faults_->CrashNthPutBeforePublish(1).ok());
  auto writer = faults_->OpenWriter("k");
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE((*writer)->Append(kNew).ok());
  auto crashed = (*writer)->Finish();
  EXPECT_EQ(crashed.status().subcode(), Subcode::kInjected) << crashed.status().ToString();
  writer->reset();
  ExpectOnly(*faults_, &kOld);
  EXPECT_EQ(TempFiles(), GetParam().local ? 1 : 0) << "a crash leaves the temp file";
  auto swept = faults_->Sweep(Duration(0));
  ASSERT_TRUE(swept.ok());
  EXPECT_EQ(swept->files_removed, GetParam().local ? 1u : 0u);
  EXPECT_EQ(swept->bytes_removed, GetParam().local ? kNew.size() : 0u);
  EXPECT_EQ(TempFiles(), 0);
  ExpectOnly(*faults_, &kOld);
}

}  // namespace
}  // namespace quiver::testing
