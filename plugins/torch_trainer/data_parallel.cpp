#include "data_parallel.hpp"

#include <algorithm>
#include <cstdlib>

#include "core/error.hpp"

#ifdef LOCI_HAVE_GLOO
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#endif

namespace loci::torch_trainer {

namespace {

// Big enough that a small model is one or two buckets, small enough that packing one overlaps sending another.
constexpr std::size_t kBucketBytes = 4 << 20;

std::string first_line(const std::exception& e) {
  const auto* c10 = dynamic_cast<const c10::Error*>(&e);
  std::string s = c10 ? c10->what_without_backtrace() : e.what();
  return s.substr(0, s.find('\n'));
}

std::string who(int rank, int world) { return "rank " + std::to_string(rank) + " of " + std::to_string(world); }

// "<length>:<text>" for each key and value: YAML values may hold any byte, newlines included.
std::vector<std::uint8_t> encode(const config::FlatConfig& keys) {
  std::string out;
  for (const auto& [k, v] : keys)
    for (const std::string* s : {&k, &v}) out += std::to_string(s->size()) + ":" + *s;
  return {out.begin(), out.end()};
}

config::FlatConfig decode(const std::vector<std::uint8_t>& bytes) {
  const std::string in(bytes.begin(), bytes.end());
  config::FlatConfig out;
  std::size_t at = 0;
  auto next = [&]() {
    const std::size_t colon = in.find(':', at);
    if (colon == std::string::npos) throw std::runtime_error("malformed settings");
    const std::size_t n = std::stoul(in.substr(at, colon - at));
    if (colon + 1 + n > in.size()) throw std::runtime_error("malformed settings");
    at = colon + 1 + n;
    return in.substr(colon + 1, n);
  };
  while (at < in.size()) {
    std::string key = next();
    out[key] = next();
  }
  return out;
}

}  // namespace

#ifdef LOCI_HAVE_GLOO

struct DataParallel::Group {
  c10::intrusive_ptr<c10d::Store> store;
  c10::intrusive_ptr<c10d::ProcessGroupGloo> gloo;
  std::chrono::milliseconds timeout;

  void wait(const std::vector<c10::intrusive_ptr<c10d::Work>>& works, std::chrono::milliseconds patience,
            const std::string& me, const std::string& what, std::int64_t step) {
    try {
      for (const auto& w : works) w->wait(patience);
    } catch (const std::exception& e) {
      throw UserError(me + ": " + what + " at step " + std::to_string(step) +
                      " failed; another rank stopped, was killed or hangs (see its output): " + first_line(e));
    }
  }
};

std::unique_ptr<DataParallel> DataParallel::join(const LaunchRank& launch, std::chrono::seconds timeout) {
  if (!launch.distributed()) return nullptr;
  const std::string me = who(launch.rank, launch.world_size);
  const char* addr = std::getenv("MASTER_ADDR");
  const char* port_text = std::getenv("MASTER_PORT");
  const std::string slurm_port = std::to_string(launch.rendezvous_port);
  if ((!addr || !*addr) && !launch.rendezvous_host.empty()) addr = launch.rendezvous_host.c_str();
  if (!port_text && launch.rendezvous_port > 0) port_text = slurm_port.c_str();
  if (!addr || !*addr || !port_text)
    throw UserError(me + " (" + launch.source +
                    "): set MASTER_ADDR and MASTER_PORT to rank 0's host and a free port, "
                    "as torchrun does");
  char* end = nullptr;
  const long port = std::strtol(port_text, &end, 10);
  if (*end != '\0' || port < 1 || port > 65535)
    throw UserError(me + ": MASTER_PORT='" + std::string(port_text) + "' is not a port number");

  auto group = std::make_unique<Group>();
  group->timeout = std::chrono::duration_cast<std::chrono::milliseconds>(timeout);
  const std::string where = std::string(addr) + ":" + port_text;
  // torchrun's agent serves the store itself and says so; every rank is then a client, and keys live under the
  // restart's prefix, exactly as PyTorch's own workers do (torch/distributed/rendezvous.py).
  const char* agent = std::getenv("TORCHELASTIC_USE_AGENT_STORE");
  const bool agent_store = agent && std::string(agent) == "True";
  try {
    c10d::TCPStoreOptions so;
    so.port = static_cast<std::uint16_t>(port);
    so.isServer = launch.rank == 0 && !agent_store;
    so.numWorkers = static_cast<std::size_t>(launch.world_size);
    so.waitWorkers = true;
    so.timeout = group->timeout;
    group->store = c10::make_intrusive<c10d::TCPStore>(addr, so);
    if (agent_store) {
      const char* attempt = std::getenv("TORCHELASTIC_RESTART_COUNT");
      group->store = c10::make_intrusive<c10d::PrefixStore>(std::string("/worker/attempt_") + (attempt ? attempt : "0"),
                                                            group->store);
    }
  } catch (const std::exception& e) {
    throw UserError(me +
                    (launch.rank == 0 && !agent_store
                         ? ": cannot serve the rendezvous at " + where + " (is the port free?): "
                         : ": no rendezvous at " + where + " within " + std::to_string(timeout.count()) + " s: ") +
                    first_line(e));
  }
  try {
    auto options = c10d::ProcessGroupGloo::Options::create(group->timeout);
    // Which interface the collectives use: GLOO_SOCKET_IFNAME as PyTorch reads it; all ranks on this host when
    // MASTER_ADDR is a loopback address; else the address this host's name resolves to.
    const std::string host = addr;
    if (const char* ifname = std::getenv("GLOO_SOCKET_IFNAME"); ifname && *ifname)
      options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForInterface(ifname));
    else if (host == "localhost" || host.rfind("127.", 0) == 0)
      options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname(host));
    else
      options->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
    group->gloo = c10::make_intrusive<c10d::ProcessGroupGloo>(group->store, launch.rank, launch.world_size, options);
  } catch (const std::exception& e) {
    throw UserError(me + ": cannot connect to the other ranks (rendezvous at " + where + "): " + first_line(e));
  }
  return std::unique_ptr<DataParallel>(new DataParallel(launch.rank, launch.world_size, std::move(group)));
}

void DataParallel::all_reduce_gradients(const std::vector<torch::Tensor>& parameters, double weight,
                                        std::int64_t step) {
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> grads;
  for (const auto& p : parameters) {
    if (!p.requires_grad()) continue;
    // A parameter this rank's batch did not reach (or an empty batch) still takes its place in the buckets.
    if (!p.grad().defined()) p.mutable_grad() = torch::zeros_like(p);
    grads.push_back(p.grad());
  }
  struct Bucket {
    std::size_t first, last;
    torch::Tensor flat;
  };
  std::vector<Bucket> buckets;
  std::vector<c10::intrusive_ptr<c10d::Work>> works;
  for (std::size_t i = 0; i < grads.size();) {
    std::size_t j = i;
    std::size_t bytes = 0;
    while (j < grads.size() && grads[j].scalar_type() == grads[i].scalar_type() &&
           (j == i || bytes + grads[j].nbytes() <= kBucketBytes))
      bytes += grads[j++].nbytes();
    std::vector<torch::Tensor> views;
    for (std::size_t k = i; k < j; ++k) views.push_back(grads[k].reshape({-1}));
    Bucket b{i, j, torch::cat(views).mul_(weight)};
    std::vector<torch::Tensor> one{b.flat};
    works.push_back(group_->gloo->allreduce(one));
    buckets.push_back(std::move(b));
    i = j;
  }
  group_->wait(works, group_->timeout, who(rank_, world_), "gradient all-reduce", step);
  for (const auto& b : buckets) {
    std::int64_t offset = 0;
    for (std::size_t k = b.first; k < b.last; ++k) {
      const std::int64_t n = grads[k].numel();
      grads[k].copy_(b.flat.narrow(0, offset, n).view_as(grads[k]));
      offset += n;
    }
  }
}

std::int64_t DataParallel::broadcast(std::int64_t value, const std::string& what, std::int64_t step,
                                     std::chrono::seconds wait) {
  if (wait.count() > 0) {
    // Through the rendezvous store, not gloo: gloo's receive is bounded by the group's timeout whatever a call
    // asks, and the store's wait takes a bound of its own. Rank 0 serves the store, so its death still ends the
    // wait at once (the connection closes).
    const std::string key = "loci/decision/" + std::to_string(decisions_++);
    try {
      if (rank_ == 0) {
        const std::string text = std::to_string(value);
        group_->store->set(key, std::vector<std::uint8_t>(text.begin(), text.end()));
        return value;
      }
      group_->store->wait({key}, std::chrono::duration_cast<std::chrono::milliseconds>(wait));
      const auto bytes = group_->store->get(key);
      return std::stoll(std::string(bytes.begin(), bytes.end()));
    } catch (const std::exception& e) {
      throw UserError(who(rank_, world_) + ": " + what + " at step " + std::to_string(step) + " did not come within " +
                      std::to_string(wait.count()) +
                      " s; rank 0 stopped, was killed or hangs (see its output): " + first_line(e));
    }
  }
  std::vector<torch::Tensor> one{torch::tensor({value}, torch::kInt64)};
  group_->wait({group_->gloo->broadcast(one)}, group_->timeout, who(rank_, world_), "broadcast of " + what, step);
  return one[0].item<std::int64_t>();
}

void DataParallel::agree(const config::Identity& identity) {
  const std::string me = who(rank_, world_);
  const auto key = [](int rank) { return "loci/run_identity/" + std::to_string(rank); };
  std::vector<config::FlatConfig> theirs(static_cast<std::size_t>(world_));
  try {
    group_->store->set(key(rank_), encode(identity.keys));
    for (int r = 0; r < world_; ++r)
      if (r != rank_) theirs[static_cast<std::size_t>(r)] = decode(group_->store->get(key(r)));
  } catch (const std::exception& e) {
    throw UserError(me +
                    ": the ranks could not compare their settings; another rank stopped, was killed or hangs "
                    "(see its output): " +
                    first_line(e));
  }
  theirs[static_cast<std::size_t>(rank_)] = identity.keys;
  for (int r = 0; r < world_; ++r) {
    if (r == rank_) continue;
    // Told the same way on every rank: the lower rank's value first.
    const int lo = std::min(r, rank_), hi = std::max(r, rank_);
    const std::string diff =
        config::describe_difference(theirs[static_cast<std::size_t>(lo)], theirs[static_cast<std::size_t>(hi)]);
    if (!diff.empty())
      throw UserError(me + ": ranks " + std::to_string(lo) + " and " + std::to_string(hi) +
                      " were started with other settings: " + diff + " (rank " + std::to_string(lo) + "'s -> rank " +
                      std::to_string(hi) + "'s); start every rank with the same config, overrides and dataset");
  }
}

#else  // LibTorch's c10d headers need gloo's (Debian: libgloo-dev); without them only one process trains.

struct DataParallel::Group {};

std::unique_ptr<DataParallel> DataParallel::join(const LaunchRank& launch, std::chrono::seconds) {
  if (!launch.distributed()) return nullptr;
  throw UserError(who(launch.rank, launch.world_size) + " (" + launch.source +
                  "): this torch_trainer was built without data-parallel training; install libgloo-dev "
                  "(scripts/setup.sh) and rebuild");
}

void DataParallel::all_reduce_gradients(const std::vector<torch::Tensor>&, double, std::int64_t) {}
std::int64_t DataParallel::broadcast(std::int64_t value, const std::string&, std::int64_t, std::chrono::seconds) {
  return value;
}
void DataParallel::agree(const config::Identity&) {}

#endif

DataParallel::DataParallel(int rank, int world, std::unique_ptr<Group> group)
    : rank_(rank), world_(world), group_(std::move(group)) {}

DataParallel::~DataParallel() = default;

}  // namespace loci::torch_trainer
