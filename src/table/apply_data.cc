#include "table/apply_data.h"

#include <algorithm>

#include "format/feature_flags.h"
#include "format/proto/rowids.pb.h"

namespace quiver::table {

namespace {

// One run covering `rows` row offsets: what Lance's build_version_meta writes for a fragment
// whose rows were all created (and last updated) in `version`.
std::string UniformVersionSequence(uint64_t rows, uint64_t version) {
  lance::table::RowDatasetVersionSequence sequence;
  lance::table::RowDatasetVersionRun* run = sequence.add_runs();
  run->mutable_span()->mutable_range()->set_end(rows);
  run->set_version(version);
  return sequence.SerializeAsString();
}

// Stable row ids for a new fragment, as Lance's assign_row_ids does at commit time: the next
// `physical_rows` ids as one Range segment, inline; and, for a fragment with rows, the version
// it was created and last updated in (the version being committed). A fragment that already
// carries a sequence keeps it (an update's moved rows keep their ids, and their created-at
// versions when it carries them) and gets, as Lance's build_version_meta gives it, the version
// being committed as the last-updated version of every row (and as the created-at version when
// it has none). Redone on every commit attempt, since `next_row_id` and the version are the
// latest manifest's.
void AssignStableRowIds(lance::table::DataFragment& fragment, uint64_t version,
                        uint64_t* next_row_id) {
  const uint64_t rows = fragment.physical_rows();
  if (fragment.row_id_sequence_case() != lance::table::DataFragment::ROW_ID_SEQUENCE_NOT_SET) {
    if (rows == 0) return;
    const std::string versions = UniformVersionSequence(rows, version);
    if (fragment.last_updated_at_version_sequence_case() ==
        lance::table::DataFragment::LAST_UPDATED_AT_VERSION_SEQUENCE_NOT_SET) {
      fragment.set_last_updated_at_version_inline(versions);
    }
    if (fragment.created_at_version_sequence_case() ==
        lance::table::DataFragment::CREATED_AT_VERSION_SEQUENCE_NOT_SET) {
      fragment.set_created_at_version_inline(versions);
    }
    return;
  }
  lance::table::RowIdSequence ids;
  lance::table::U64Segment::Range* range = ids.add_segments()->mutable_range();
  range->set_start(*next_row_id);
  range->set_end(*next_row_id + rows);
  fragment.set_inline_row_ids(ids.SerializeAsString());
  *next_row_id += rows;
  if (rows == 0) return;  // Lance writes no version metadata for an empty fragment
  const std::string versions = UniformVersionSequence(rows, version);
  fragment.set_last_updated_at_version_inline(versions);
  fragment.set_created_at_version_inline(versions);
}

// The next fragment id: above max_fragment_id and every id present.
uint64_t NextFragmentId(const lance::table::Manifest& m) {
  uint64_t next = m.has_max_fragment_id() ? uint64_t{m.max_fragment_id()} + 1 : 0;
  for (const auto& f : m.fragments()) next = std::max(next, f.id() + 1);
  return next;
}

// `m` is still the manifest committed on top of: the new version is its version + 1 (1 when
// the dataset is being created from an empty manifest).
void AddWithIds(const google::protobuf::RepeatedPtrField<lance::table::DataFragment>& fragments,
                uint64_t* next_id, lance::table::Manifest& m) {
  const bool stable_row_ids = (m.reader_feature_flags() & format::kFlagStableRowIds) != 0;
  const uint64_t version = m.version() + 1;
  uint64_t next_row_id = m.next_row_id();
  for (const auto& f : fragments) {
    lance::table::DataFragment* added = m.add_fragments();
    *added = f;
    if (f.id() == 0) added->set_id((*next_id)++);
    *next_id = std::max(*next_id, added->id() + 1);
    if (stable_row_ids) AssignStableRowIds(*added, version, &next_row_id);
  }
  if (*next_id > 0) m.set_max_fragment_id(static_cast<uint32_t>(*next_id - 1));
  if (stable_row_ids) m.set_next_row_id(next_row_id);
}

}  // namespace

Status ApplyAppend(const lance::table::Transaction::Append& append, lance::table::Manifest& m) {
  uint64_t next = NextFragmentId(m);
  AddWithIds(append.fragments(), &next, m);
  return Status::OK();
}

Status ApplyOverwrite(const lance::table::Transaction::Overwrite& overwrite,
                      lance::table::Manifest& m, bool* drop_indices) {
  if (overwrite.schema_size() == 0) return Status::InvalidInput("an overwrite without a schema");
  uint64_t next = NextFragmentId(m);
  m.clear_fragments();
  AddWithIds(overwrite.fragments(), &next, m);
  *m.mutable_fields() = overwrite.schema();
  *m.mutable_schema_metadata() = overwrite.schema_metadata();
  for (const auto& [k, v] : overwrite.config_upsert_values()) (*m.mutable_config())[k] = v;
  *drop_indices = true;
  return Status::OK();
}

}  // namespace quiver::table
