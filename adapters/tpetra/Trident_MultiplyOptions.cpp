#include "Trident_MultiplyOptions.hpp"

#include <Teuchos_StandardParameterEntryValidators.hpp>

#include <trident/backend/Backend.hpp>
#include <trident/core/Errors.hpp>
#include <trident/core/Hash.hpp>
#include <trident/local/LocalSpGEMM.hpp>

namespace Trident {
namespace MatrixMatrix {

namespace {
const std::string kPrefix = "trident: ";

long long nameHash(const std::string& name) { return agreementHash(name.data(), name.size()); }

template <class T>
T valueOr(const Teuchos::ParameterList& given, const Teuchos::ParameterList& valid, const char* key) {
  return given.isParameter(key) ? given.get<T>(key) : valid.get<T>(key);
}
}  // namespace

// Validated values, with getValidParameters()'s defaults for what the caller left out: the
// defaults are written once, there.
void MultiplyOptions::readValues(const Teuchos::ParameterList& given, const Teuchos::ParameterList& valid) {
  auto str = [&](const char* key) { return valueOr<std::string>(given, valid, key); };
  auto num = [&](const char* key) { return valueOr<int>(given, valid, key); };
  auto flag = [&](const char* key) { return valueOr<bool>(given, valid, key); };
  const std::string algo = str("trident: algorithm");
  algorithm = algo == "summa"     ? Algorithm::Summa
              : algo == "tpetra"  ? Algorithm::Tpetra
              : algo == "trident" ? Algorithm::Trident
              : algo == "1d"      ? Algorithm::OneD
                                  : Algorithm::Auto;
  ranks_per_group = num("trident: ranks per group");
  permute = str("trident: permute") == "random";
  seed = num("trident: permute seed");
  local_kernel = str("trident: local kernel");
  device = str("trident: device");
  lookahead = num("trident: lookahead");
  gi_pacing = str("trident: gi pacing") == "ready" ? GiPacing::Ready : GiPacing::Eager;
  count_bytes = flag("trident: count bytes");
  const std::string sh = str("trident: share node work");
  share_node_work = sh == "always" ? ShareChoice::Always : sh == "never" ? ShareChoice::Never : ShareChoice::Auto;
  remember_auto_choice = flag("trident: auto: remember choice");
  estimate_auto_choice = flag("trident: auto: estimate without counting");
  const std::string g = str("trident: grid");
  grid = g == "square" ? GridChoice::Square : g == "rows" ? GridChoice::Rows : GridChoice::Auto;
  fetch = str("trident: fetch") == "whole" ? Fetch::Whole : Fetch::Needed;
  const std::string sl = str("trident: slices");
  slices = sl == "balanced" ? SliceChoice::Balanced : sl == "owners" ? SliceChoice::Owners : SliceChoice::Auto;
  const std::string bl = str("trident: blocks");
  blocks = bl == "even" ? BlockChoice::Even : bl == "balanced" ? BlockChoice::Balanced : BlockChoice::Auto;
}

std::string toString(Algorithm a) {
  switch (a) {
    case Algorithm::Trident: return "trident";
    case Algorithm::Summa: return "summa";
    case Algorithm::Tpetra: return "tpetra";
    case Algorithm::OneD: return "1d";
    case Algorithm::Auto: return "auto";
  }
  return "?";
}

Teuchos::RCP<const Teuchos::ParameterList> getValidParameters() {
  static Teuchos::RCP<Teuchos::ParameterList> pl;
  if (!pl.is_null()) return pl;
  using Teuchos::rcp;
  pl = rcp(new Teuchos::ParameterList("Trident"));
  pl->set("trident: algorithm", std::string("auto"),
          "\"auto\" (default: the least time predicted from per-rank counts and a machine model, the file named by "
          "the environment variable TRIDENT_MACHINE_MODEL, else the built-in defaults; Tpetra's algorithm, where "
          "chosen, runs as \"1d\" where it can), \"trident\" (hierarchical), \"summa\" (2D Sparse SUMMA baseline), "
          "\"tpetra\" (Tpetra's own Multiply), \"1d\" (Tpetra's 1D row-wise algorithm with Trident's kernel on the "
          "operands where Tpetra keeps them; Tpetra's own Multiply where that cannot run: a transposed operand, a "
          "plan kept for reuse, a C already filled, another kernel or device, or A's Import not from B's row map)",
          rcp(new Teuchos::StringValidator(Teuchos::tuple<std::string>("trident", "summa", "tpetra", "1d", "auto"))));
  pl->set("trident: ranks per group", 0,
          "lambda, ranks per group sharing the fast link; 0 = size of the MPI_COMM_TYPE_SHARED groups",
          rcp(new Teuchos::EnhancedNumberValidator<int>(0, 1 << 30)));
  pl->set("trident: permute", std::string("none"), "\"none\" or \"random\" (symmetric random relabeling)",
          rcp(new Teuchos::StringValidator(Teuchos::tuple<std::string>("none", "random"))));
  pl->set("trident: permute seed", 12345, "seed of the random relabeling",
          rcp(new Teuchos::EnhancedNumberValidator<int>()));
  Teuchos::Array<std::string> kernels;
  for (auto& k : localKernelNames()) kernels.push_back(k);
  pl->set("trident: local kernel", std::string("gustavson"),
          "local SpGEMM backend: \"gustavson\" (sorted rows, default), \"kokkoskernels\", \"reference\", "
          "\"cusparse\" (GPU; CUDA builds)",
          rcp(new Teuchos::StringValidator(kernels)));
  Teuchos::Array<std::string> devices;
  for (auto& d : backendDeviceNames()) devices.push_back(d);
  pl->set("trident: device", std::string("host"),
          "backend of the Trident and SUMMA multiplies: \"host\" (default: \"trident: local kernel\", MPI "
          "transports) or \"cuda\" (CUDA builds: cuSPARSE on each rank's GPU, NCCL over Li)",
          rcp(new Teuchos::StringValidator(devices)));
  pl->set("trident: grid", std::string("auto"),
          "coarse grid of groups: \"square\" (near-square 2D, the paper's), \"rows\" (groups x 1: nothing crosses "
          "Gi between Tpetra's 1D rows and the tiles), or \"auto\" (the one with less estimated Gi traffic)",
          rcp(new Teuchos::StringValidator(Teuchos::tuple<std::string>("auto", "square", "rows"))));
  pl->set("trident: fetch", std::string("needed"),
          "Trident's Gi fetch of B: \"needed\" (only the rows the requesting group's A tile uses) or \"whole\" "
          "(whole slices, the paper's volume model)",
          rcp(new Teuchos::StringValidator(Teuchos::tuple<std::string>("needed", "whole"))));
  pl->set("trident: slices", std::string("auto"),
          "how Trident cuts tiles into slices: \"balanced\" (equal work per rank), \"owners\" (at the rows each "
          "rank holds in Tpetra's 1D distribution: nothing moves in or out and the kernel writes C's final arrays; "
          "needs the rows grid, groups of consecutive ranks and no relabeling), or \"auto\" (default: owners when "
          "possible and its busiest rank has at most 2x the average work, else balanced)",
          rcp(new Teuchos::StringValidator(Teuchos::tuple<std::string>("auto", "balanced", "owners"))));
  pl->set("trident: blocks", std::string("auto"),
          "how Trident cuts A's rows into the groups' blocks when its slices are not the owners' rows: \"even\" "
          "(equal rows: under Tpetra's even row map each group's own rows, so A and C move only inside groups), "
          "\"balanced\" (equal work: the rows that change group cross Gi both ways), or \"auto\" (default: balanced "
          "when the busiest group has over 1.1x the average work, the machine model's Gi (TRIDENT_MACHINE_MODEL) "
          "sends an entry of C faster than the kernel produces one, and no node runs more ranks than it has cores)",
          rcp(new Teuchos::StringValidator(Teuchos::tuple<std::string>("auto", "even", "balanced"))));
  pl->set("trident: share node work", std::string("auto"),
          "\"1d\" product: \"always\" (where a rank of a group (node) has over 1.15x the group's average "
          "multiply-adds, it keeps rows up to the average and the ranks under it compute the rest, over Li; its rows "
          "of C come back, nothing crosses Gi), \"never\" (every rank computes its own rows), or \"auto\" (default: "
          "always where no node runs more ranks than it has cores; where they share cores the operating system already "
          "hands a lighter rank's core to a busier one)",
          rcp(new Teuchos::StringValidator(Teuchos::tuple<std::string>("auto", "always", "never"))));
  pl->set("trident: count bytes", true,
          "count the bytes and multiply-adds of a product that Tpetra's own Multiply does (\"trident: algorithm\" = "
          "\"tpetra\", or \"auto\" choosing it): exact, but one more import of B's row lengths per product; false "
          "leaves those counters at zero (MultiplyStats::bytes_counted). Trident and SUMMA count theirs for free",
          Teuchos::rcp(new Teuchos::BoolParameterEntryValidator()));
  pl->set("trident: auto: remember choice", true,
          "\"trident: algorithm\" = \"auto\": reuse the choice counted for the same operands (same patterns, maps "
          "and parameters, compared exactly) in an earlier call of this process instead of counting again; false "
          "counts every call",
          Teuchos::rcp(new Teuchos::BoolParameterEntryValidator()));
  pl->set("trident: auto: estimate without counting", true,
          "\"trident: algorithm\" = \"auto\": decide from what each rank knows of its own rows (no message beyond "
          "the call's one check) when that estimate is decisive or counting would cost over 5 % of the product "
          "(25 % where the choice turns on the 1D rows' busiest rank, which the estimate overstates); "
          "false counts every product the bound does not settle (exact Tpetra bytes in the prediction)",
          Teuchos::rcp(new Teuchos::BoolParameterEntryValidator()));
  pl->set("trident: lookahead", 2, "rounds of tiles in flight ahead of the multiply (>= 1)",
          rcp(new Teuchos::EnhancedNumberValidator<int>(1, 1 << 20)));
  pl->set("trident: gi pacing", std::string("eager"),
          "when Trident's tiles start over Gi: \"eager\" (default: as soon as the sender's in phase is done) or "
          "\"ready\" (a group gets tiles only once every rank of it, and of the sender's group, has finished the "
          "in phase, so the in phase's small messages do not queue behind tiles on a saturated node link; the "
          "link idles meanwhile)",
          rcp(new Teuchos::StringValidator(Teuchos::tuple<std::string>("eager", "ready"))));
  return pl;
}

MultiplyOptions MultiplyOptions::parse(const Teuchos::RCP<Teuchos::ParameterList>& params, MPI_Comm comm) {
  CollectiveCheck check;
  MultiplyOptions o = parse(params, check);
  check.run(comm);
  o.requireAgreement(check);
  return o;
}

MultiplyOptions MultiplyOptions::parse(const Teuchos::RCP<Teuchos::ParameterList>& params, CollectiveCheck& check) {
  MultiplyOptions o;
  o.tpetra_params = Teuchos::rcp(new Teuchos::ParameterList("Tpetra"));
  std::string error;
  auto valid = getValidParameters();
  if (!params.is_null()) {
    for (auto it = params->begin(); it != params->end() && error.empty(); ++it) {
      const std::string& key = params->name(it);
      const Teuchos::ParameterEntry& e = params->entry(it);
      if (key.compare(0, kPrefix.size(), kPrefix) != 0) {
        o.tpetra_params->setEntry(key, e);
        continue;
      }
      if (!valid->isParameter(key)) {
        error = "unknown parameter \"" + key + "\"; valid:";
        for (auto v = valid->begin(); v != valid->end(); ++v) error += " \"" + valid->name(v) + "\"";
        break;
      }
      try {
        valid->getEntry(key).validator()->validate(e, key, "Trident");
        if (e.getAny(false).type() != valid->getEntry(key).getAny(false).type())
          throw std::invalid_argument("wrong type");
      } catch (const std::exception&) {
        error = "bad value for \"" + key + "\" (" + Teuchos::toString(e) + "); " + valid->getEntry(key).docString();
      }
    }
  }
  if (error.empty()) o.readValues(params.is_null() ? Teuchos::ParameterList() : *params, *valid);
  check.failIf(!error.empty(), error);
  // As Tpetra's Multiply: C's global constants are computed unless the caller says otherwise.
  if (!o.tpetra_params->isParameter("compute global constants")) o.tpetra_params->set("compute global constants", true);
  // Every rank must agree, or the ranks would disagree about the grid and deadlock. Names are
  // compared whole (by hash), so two ranks asking for different devices or kernels never pass.
  const long long v[] = {o.ranks_per_group, o.lookahead, static_cast<int>(o.algorithm), o.permute ? 1 : 0, o.seed,
                         nameHash(o.local_kernel), static_cast<int>(o.grid), static_cast<int>(o.fetch),
                         static_cast<int>(o.slices), o.count_bytes ? 1 : 0, nameHash(o.device),
                         o.remember_auto_choice ? 1 : 0, static_cast<int>(o.gi_pacing),
                         o.estimate_auto_choice ? 1 : 0, static_cast<int>(o.blocks), static_cast<int>(o.share_node_work)};
  o.slots_ = sizeof(v) / sizeof(v[0]);
  for (std::size_t t = 0; t < o.slots_; ++t) {
    const std::size_t slot = check.contribute(v[t]);
    if (t == 0) o.first_slot_ = slot;
  }
  // A GPU kernel or backend: refused on every rank, before any tile moves, where some rank has no GPU.
  if (error.empty()) {
    check.failIf(!localKernelAvailable(o.local_kernel),
                 "\"trident: local kernel\" = \"" + o.local_kernel + "\", but some rank cannot run it (no CUDA device is visible there)");
    check.failIf(!backendAvailable(o.device),
                 "\"trident: device\" = \"" + o.device + "\", but some rank cannot run it (no CUDA device is visible there)");
  }
  return o;
}

void MultiplyOptions::requireAgreement(const CollectiveCheck& check) const {
  bool same = true;
  for (std::size_t t = 0; t < slots_; ++t) same = same && check.same(first_slot_ + t);
  // The reduced values are the same on every rank, and so is this verdict.
  requireAll(same, "Trident: the \"trident: ...\" parameters must be the same on every rank");
}

}  // namespace MatrixMatrix
}  // namespace Trident
