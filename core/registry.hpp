// One registry for every kind of named variant (topologies, dynamics models, integrators, probes, PEs, initialisers,
// interventions), so that a new variant is one file whose last line registers it (LOCI_REGISTER), and every registry
// answers an unknown name the same way. Header-only: the parts of loci below core's library (sim, probe) use it too.
//
// Info is the kind's description; it has a `std::string name`. The table of one kind lives in exactly one shared
// library: its owner declares it beside Info, in Info's namespace (LOCI_DECLARE_REGISTRY), and defines it in one .cpp
// (LOCI_DEFINE_REGISTRY). An extension library loaded with RTLD_LOCAL then holds no copy of its own and registers
// into the owner's table; a function-local static in a header template would give it a second, private one.
#pragma once

#include <algorithm>
#include <deque>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include <boost/core/noncopyable.hpp>

namespace loci {

template <class Info>
class Registry : boost::noncopyable {
 public:
  // The one table of this kind (defined by LOCI_DEFINE_REGISTRY in its owner's library, found by argument-dependent
  // lookup in Info's namespace).
  static Registry& instance() { return loci_registry_of(static_cast<Info*>(nullptr)); }

  // `kind` names the variants in messages: "topology", "probe".
  explicit Registry(std::string kind) : kind_(std::move(kind)) {}

  // std::logic_error for a name registered twice (two files claiming one name is a bug, not a user's mistake).
  const Info& add(Info info) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (find_locked(info.name)) throw std::logic_error(kind_ + " '" + info.name + "' registered twice");
    entries_.push_back(std::move(info));
    return entries_.back();
  }

  // std::invalid_argument naming the registered ones when `name` is not one of them.
  const Info& at(const std::string& name) const {
    std::lock_guard<std::mutex> lock(mutex_);
    if (const Info* found = find_locked(name)) return *found;
    std::string known;
    for (const auto& n : sorted_names_locked()) known += (known.empty() ? "" : ", ") + n;
    throw std::invalid_argument("unknown " + kind_ + " '" + name + "' (known: " + known + ")");
  }

  const Info* find(const std::string& name) const {
    std::lock_guard<std::mutex> lock(mutex_);
    return find_locked(name);
  }

  bool contains(const std::string& name) const { return find(name) != nullptr; }

  std::vector<std::string> names() const {  // sorted
    std::lock_guard<std::mutex> lock(mutex_);
    return sorted_names_locked();
  }

  // Every entry in the order registered (a deque: entries keep their address as more register).
  std::vector<const Info*> in_order() const {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<const Info*> out;
    for (const auto& e : entries_) out.push_back(&e);
    return out;
  }

  const std::string& kind() const { return kind_; }

 private:
  const Info* find_locked(const std::string& name) const {
    for (const auto& e : entries_)
      if (e.name == name) return &e;
    return nullptr;
  }

  std::vector<std::string> sorted_names_locked() const {
    std::vector<std::string> out;
    for (const auto& e : entries_) out.push_back(e.name);
    std::sort(out.begin(), out.end());
    return out;
  }

  std::string kind_;
  mutable std::mutex mutex_;
  std::deque<Info> entries_;
};

// A static instance in a variant's .cpp file registers it when its library is loaded.
template <class Info>
struct Registration {
  explicit Registration(Info info) { Registry<Info>::instance().add(std::move(info)); }
};

}  // namespace loci

// In the kind's header, in Info's namespace, after Info: the table is defined in one .cpp of the owning library.
#define LOCI_DECLARE_REGISTRY(Info) ::loci::Registry<Info>& loci_registry_of(Info*);

// In one .cpp of the owning library, in Info's namespace.
#define LOCI_DEFINE_REGISTRY(Info, kind_word)       \
  ::loci::Registry<Info>& loci_registry_of(Info*) { \
    static ::loci::Registry<Info> table(kind_word); \
    return table;                                   \
  }

#define LOCI_CONCAT_INNER(a, b) a##b
#define LOCI_CONCAT(a, b) LOCI_CONCAT_INNER(a, b)

// The one way a variant registers, the last line of its file, at namespace scope: LOCI_REGISTER(ProbeInfo, {"name",
// "doc", {"output"}, fn}) builds Info from the rest of the arguments and adds it to Info's registry when the library
// holding the file is loaded (a plugin or an extension registers the same way).
#define LOCI_REGISTER(Info, ...) \
  static const ::loci::Registration<Info> LOCI_CONCAT(loci_registered_, __COUNTER__)(__VA_ARGS__)
