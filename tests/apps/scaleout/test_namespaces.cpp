// Ranks on two hosts of their own: two network namespaces joined by a veth pair, each rank with its own address
// and GLOO_SOCKET_IFNAME, rank 0's store reached over that link, not over loopback. Data-parallel training gives
// one process's curve; generation sharded by rank gives one process's bytes; a rank that hangs (SIGSTOP) rather
// than dies stops the other within train.dist_timeout with one line, and --resume on both ranks then ends with the
// bytes of an uninterrupted run. Skipped, with a message, where namespaces cannot be made (not root).
#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>

#include "tests/apps/scaleout/ranks.hpp"
#include "tests/apps/scaleout/train_fixture.hpp"

using namespace loci::test::scaleout;

namespace {

// Two namespaces and the link between them, removed again when the test ends.
class TwoHosts {
 public:
  TwoHosts() {
    const std::string id = std::to_string(::getpid() % 100000);
    a_ = "loci_a" + id, b_ = "loci_b" + id;
    // Interface names are at most 15 characters.
    va_ = "lva" + id, vb_ = "lvb" + id;
    const int net = 100 + static_cast<int>(::getpid() % 100);
    addr_a_ = "10.213." + std::to_string(net) + ".1", addr_b_ = "10.213." + std::to_string(net) + ".2";
    const std::string setup = "ip netns add " + a_ + " && ip netns add " + b_ + " && ip link add " + va_ +
                              " type veth peer name " + vb_ + " && ip link set " + va_ + " netns " + a_ +
                              " && ip link set " + vb_ + " netns " + b_ + " && ip -n " + a_ + " addr add " + addr_a_ +
                              "/24 dev " + va_ + " && ip -n " + b_ + " addr add " + addr_b_ + "/24 dev " + vb_ +
                              " && ip -n " + a_ + " link set " + va_ + " up && ip -n " + b_ + " link set " + vb_ +
                              " up && ip -n " + a_ + " link set lo up && ip -n " + b_ + " link set lo up";
    ok_ = std::system(("(" + setup + ") 2> /dev/null").c_str()) == 0;
  }
  ~TwoHosts() { std::system(("ip netns del " + a_ + " 2> /dev/null; ip netns del " + b_ + " 2> /dev/null").c_str()); }

  bool ok() const { return ok_; }
  // Rank 0 on host a, rank 1 on host b; both reach rank 0 at a's address over the veth link.
  std::vector<loci::test::RankHost> hosts() const {
    return {{"ip netns exec " + a_, addr_a_, "GLOO_SOCKET_IFNAME=" + va_},
            {"ip netns exec " + b_, addr_a_, "GLOO_SOCKET_IFNAME=" + vb_}};
  }

 private:
  std::string a_, b_, va_, vb_, addr_a_, addr_b_;
  bool ok_ = false;
};

}  // namespace

TEST_CASE("ranks in two network namespaces: training, generation and a hung rank", "[scaleout][namespaces]") {
  const TwoHosts net;
  if (!net.ok()) {
    WARN("network namespaces cannot be made here (needs root and iproute2): cross-host faults not tested");
    return;
  }
  loci::test::TempDir dir;
  const auto hosts = net.hosts();

  SECTION("two hosts train the curve of one process") {
    const std::string cfg =
        train_config(dir, lst(), "epochs: 4, eval_every: 1, batch_size: 19", "task: {eval_splits: [train]}\n");
    const auto one = run_loci("train -q " + cfg + " out=" + (dir.path() / "one").string());
    REQUIRE(one.exit_code == 0);
    const auto codes =
        loci::test::run_ranks(2, "train -q " + cfg + " out=" + (dir.path() / "two").string(), dir.path(), {}, hosts);
    INFO(slurp(dir.path() / "rank0.log") << slurp(dir.path() / "rank1.log"));
    REQUIRE(codes == std::vector<int>{0, 0});
    const auto a = column(dir.path() / "one/metrics.csv", "loss"), b = column(dir.path() / "two/metrics.csv", "loss");
    REQUIRE(a.size() == b.size());
    for (std::size_t i = 0; i < a.size(); ++i) CHECK(b[i] == Approx(a[i]).epsilon(1e-4).margin(1e-6));
  }

  SECTION("two hosts generate the bytes of one process") {
    const auto cfg =
        dir.write("gen.yaml", "include: " + std::string(LOCI_SOURCE_DIR) +
                                  "/configs/lst.yaml\nsplits: {train: 40, test: 10}\nsamples_per_shard: 8\n");
    REQUIRE(run_loci("generate -q " + cfg + " out=" + (dir.path() / "g1").string()).exit_code == 0);
    const auto codes =
        loci::test::run_ranks(2, "generate -q " + cfg + " out=" + (dir.path() / "g2").string(), dir.path(), {}, hosts);
    INFO(slurp(dir.path() / "rank0.log") << slurp(dir.path() / "rank1.log"));
    REQUIRE(codes == std::vector<int>{0, 0});
    CHECK(slurp(dir.path() / "g1/index.json") == slurp(dir.path() / "g2/index.json"));
  }

  SECTION("a rank that hangs stops the other within dist_timeout, and --resume gives the uninterrupted bytes") {
    const std::string cfg =
        train_config(dir, lst(), "epochs: 200, eval_every: 50, batch_size: 16") + " train.dist_timeout=8";
    const auto whole =
        loci::test::run_ranks(2, "train -q " + cfg + " out=" + (dir.path() / "whole").string(), dir.path(), {}, hosts);
    INFO(slurp(dir.path() / "rank0.log") << slurp(dir.path() / "rank1.log"));
    REQUIRE(whole == std::vector<int>{0, 0});

    const fs::path run = dir.path() / "run";
    const std::string args = "train -q " + cfg + " out=" + run.string();
    const int port = loci::test::free_port();
    const auto r0 = loci::test::start_rank(0, 2, port, args, dir.path() / "r0.log", {}, hosts[0]);
    const auto r1 = loci::test::start_rank(1, 2, port, args, dir.path() / "r1.log", {}, hosts[1]);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    while (!fs::exists(run / "checkpoints/last.pt") && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    REQUIRE(fs::exists(run / "checkpoints/last.pt"));
    // sh, `ip netns exec` and env each exec the next, so the rank's pid is loci's own.
    ::kill(r1.pid, SIGSTOP);
    const auto t0 = std::chrono::steady_clock::now();
    const int code = loci::test::wait_rank(r0, std::chrono::seconds(60));
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const std::string log = r0.output();
    INFO(log);
    CHECK(code == 1);
    CHECK(seconds < 8 + 20);  // the timeout, and some slack for a loaded machine
    CHECK_THAT(log, Catch::Contains("loci: error: rank 0 of 2: ") && Catch::Contains("another rank stopped"));
    CHECK(std::count(log.begin(), log.end(), '\n') == 1);
    ::kill(r1.pid, SIGKILL);
    loci::test::wait_rank(r1, std::chrono::seconds(30));
    REQUIRE_FALSE(fs::exists(run / "summary.json"));

    const auto codes = loci::test::run_ranks(2, args + " --resume", dir.path(), {}, hosts);
    INFO(slurp(dir.path() / "rank0.log") << slurp(dir.path() / "rank1.log"));
    REQUIRE(codes == std::vector<int>{0, 0});
    for (const char* metric : {"loss", "accuracy", "pe_norm"})  // every column but the wall-clock seconds
      CHECK(column(run / "metrics.csv", metric) == column(dir.path() / "whole/metrics.csv", metric));
    CHECK(slurp(run / "pe.h5") == slurp(dir.path() / "whole/pe.h5"));
  }
}
