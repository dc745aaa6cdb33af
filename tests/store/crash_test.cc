// kill -9 at every step of a put, made with Put or with a streaming writer (OpenWriter; its
// Finish runs the same steps): a writer process is stopped at a sync point and killed with
// SIGKILL by the test. Afterwards the key holds nothing or the complete old or new bytes (never a
// mix), leftover temp files are invisible to List, and Sweep removes exactly them.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "store/key.h"
#include "store_test_util.h"

namespace quiver::testing {
namespace {

const std::string kOld(1 << 20, 'o');
const std::string kNew(3 << 20, 'n');

struct Step {
  const char* point;
  bool published;            // the new bytes are visible once the writer dies here
  bool temp_left_by_rename;  // a temp file remains (overwrite / if-match)
  bool temp_left_by_link;    // a temp file remains (create-only: link leaves it until unlink)
};

const Step kSteps[] = {
    {store_points::kPutTempWritten, false, true, true},
    {store_points::kPutTempSynced, false, true, true},
    {store_points::kPutBeforePublish, false, true, true},
    {store_points::kPutAfterPublish, true, false, true},
    {store_points::kPutDone, true, false, false},
};

using Param = std::tuple<StackSpec, PutMode, int /*step index*/, bool /*via OpenWriter*/>;

class KillNineTest : public ::testing::TestWithParam<Param> {};

TEST_P(KillNineTest, KeyHoldsOldOrNewBytesAndSweepRemovesLeftovers) {
  const auto& [spec, mode, step_index, via_writer] = GetParam();
  const Step& step = kSteps[step_index];
  TempDir root;
  const bool had_old = mode != PutMode::kCreateOnly;
  if (had_old) {
    ASSERT_TRUE(spec.make(root.path(), nullptr)->Put("k", kOld).ok());
  }

  int notify[2];
  ASSERT_EQ(::pipe(notify), 0);
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::close(notify[0]);
    SyncPoints sync_points;
    auto store = spec.make(root.path(), &sync_points);
    PutOptions options;
    options.mode = mode;
    if (mode == PutMode::kIfMatch) {
      auto head = store->Head("k");
      if (!head.ok()) ::_exit(3);
      options.if_match = head->etag;
    }
    const int fd = notify[1];
    sync_points.Set(step.point, [fd](std::string_view) {
      char c = 'x';
      (void)!::write(fd, &c, 1);
      while (true) ::pause();  // wait here for SIGKILL
      return Status::OK();
    });
    if (via_writer) {
      auto writer = store->OpenWriter("k", options);
      if (!writer.ok()) ::_exit(4);
      for (size_t at = 0; at < kNew.size(); at += 1 << 20) {
        if (!(*writer)->Append(std::string_view(kNew).substr(at, 1 << 20)).ok()) ::_exit(5);
      }
      (void)(*writer)->Finish();
    } else {
      (void)store->Put("k", kNew, options);
    }
    ::_exit(10);  // the step was never reached
  }
  ::close(notify[1]);
  char c;
  ASSERT_EQ(::read(notify[0], &c, 1), 1) << "the writer never reached " << step.point;
  ::close(notify[0]);
  ASSERT_EQ(::kill(pid, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);

  auto store = spec.make(root.path(), nullptr);
  auto got = store->Get("k");
  if (step.published) {
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_TRUE(got->data == kNew) << "size " << got->data.size();
  } else if (had_old) {
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_TRUE(got->data == kOld) << "size " << got->data.size();
  } else {
    EXPECT_TRUE(got.status().IsNotFound()) << got.status().ToString();
  }

  // Temp files never show up in List.
  auto listed = store->ListAll("");
  ASSERT_TRUE(listed.ok());
  std::vector<std::string> keys;
  for (const ObjectMeta& m : *listed) keys.push_back(m.key);
  EXPECT_EQ(keys, (step.published || had_old) ? std::vector<std::string>{"k"}
                                              : std::vector<std::string>{});

  const bool temp_left =
      mode == PutMode::kCreateOnly ? step.temp_left_by_link : step.temp_left_by_rename;
  auto swept = store->Sweep(Duration(0));
  ASSERT_TRUE(swept.ok()) << swept.status().ToString();
  EXPECT_EQ(swept->files_removed, temp_left ? 1u : 0u);
  EXPECT_EQ(CountFiles(root.path() + "/" + std::string(kReservedSegment) + "/tmp"), 0);
  // Sweeping removed only leftovers: the key is unchanged.
  auto after = store->Get("k");
  EXPECT_EQ(after.ok(), got.ok());
  if (after.ok() && got.ok()) {
    EXPECT_TRUE(after->data == got->data);
  }
}

std::vector<StackSpec> CrashStacks() {
  std::vector<StackSpec> out;
  for (StackSpec& s : ProcessSharedStacks()) {
    if (s.name == "local" || s.name == "full_stack_local") out.push_back(std::move(s));
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(
    Steps, KillNineTest,
    ::testing::Combine(::testing::ValuesIn(CrashStacks()),
                       ::testing::Values(PutMode::kOverwrite, PutMode::kCreateOnly,
                                         PutMode::kIfMatch),
                       ::testing::Range(0, static_cast<int>(std::size(kSteps))), ::testing::Bool()),
    [](const ::testing::TestParamInfo<Param>& param_info) {
      std::string point = kSteps[std::get<2>(param_info.param)].point;
      point = point.substr(point.rfind('.') + 1);
      return std::get<0>(param_info.param).name + "_" +
             std::string(PutModeName(std::get<1>(param_info.param))) + "_" + point +
             (std::get<3>(param_info.param) ? "_writer" : "");
    });

}  // namespace
}  // namespace quiver::testing
