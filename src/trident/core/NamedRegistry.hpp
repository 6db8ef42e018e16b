#pragma once
// The list behind a by-name choice ("trident: local kernel", "trident: device"): entries with a
// name, an available() check and a factory, which their own files register (KernelRegistry.cpp,
// BackendRegistry.cpp). The registry names none of them: a generated function registers the ones
// this build has (BuiltinRegistrations.cpp.in) on the first use.
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace Trident {

// Entry: a struct with a std::string name (and whatever else its users need).
template <class Entry>
class NamedRegistry {
 public:
  // builtins registers this build's entries, through add(); it runs once, on the first use.
  explicit NamedRegistry(void (*builtins)()) : builtins_(builtins) {}

  // Adds entry, or replaces the one of its name; after the built-ins, so it can replace them.
  void add(Entry entry) {
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    fill();
    for (Entry& e : entries_)
      if (e.name == entry.name) {
        e = std::move(entry);
        return;
      }
    entries_.push_back(std::move(entry));
  }

  // A copy, so the caller may run its factory without holding the registry.
  std::optional<Entry> find(const std::string& name) {
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    fill();
    for (const Entry& e : entries_)
      if (e.name == name) return e;
    return std::nullopt;
  }

  // In the order they registered.
  std::vector<std::string> names() {
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    fill();
    std::vector<std::string> out;
    for (const Entry& e : entries_) out.push_back(e.name);
    return out;
  }

  // "\"a\", \"b\"": for the message of an unknown name.
  std::string quotedNames() {
    std::string out;
    for (const std::string& n : names()) out += (out.empty() ? "\"" : ", \"") + n + "\"";
    return out;
  }

 private:
  // Recursive mutex: the built-ins call add() from inside fill(); filled_ is set first, so that
  // add() does not fill again. Other threads wait until the built-ins are in.
  void fill() {
    if (filled_) return;
    filled_ = true;
    builtins_();
  }

  void (*builtins_)();
  std::recursive_mutex mutex_;
  bool filled_ = false;
  std::vector<Entry> entries_;
};

}  // namespace Trident
