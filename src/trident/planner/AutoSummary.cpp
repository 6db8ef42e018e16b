#include "trident/planner/AutoSummary.hpp"

namespace Trident {
namespace planner {

namespace {
struct Contributor {
  const AutoSummary& s;
  CollectiveCheck& check;
  SummarySlots slots;
  void value(SummaryField f) { slots.values.push_back(check.contribute(s.*f)); }
  void total(SummaryField f) { slots.sums.push_back(check.contributeSum(s.*f)); }
  void max(const char*, SummaryField f) { value(f); }
  void min(const char*, SummaryField f) { value(f); }
  void range(const char*, SummaryField f) { value(f); }
  void same(const char*, SummaryField f) { value(f); }
  void sum(const char*, SummaryField f) { total(f); }
  void maxSum(const char*, SummaryField f) {
    value(f);
    total(f);
  }
};

// Walks the fields in Contributor's order; Source gives a value slot's min and max and a sum.
template <class Source>
struct Reader {
  const Source& from;
  ReducedSummary r;
  std::size_t value = 0, summed = 0;
  void max(const char*, SummaryField f) { r.most.*f = from.max(value++); }
  void min(const char*, SummaryField f) { r.least.*f = from.min(value++); }
  void range(const char*, SummaryField f) {
    r.most.*f = from.max(value);
    r.least.*f = from.min(value++);
  }
  void same(const char* n, SummaryField f) { range(n, f); }
  void sum(const char*, SummaryField f) { r.total.*f = from.sum(summed++); }
  void maxSum(const char* n, SummaryField f) {
    max(n, f);
    sum(n, f);
  }
};

struct FromCheck {
  const CollectiveCheck& check;
  const SummarySlots& slots;
  long long max(std::size_t i) const { return check.max(slots.values.at(i)); }
  long long min(std::size_t i) const { return check.min(slots.values.at(i)); }
  long long sum(std::size_t i) const { return check.sum(slots.sums.at(i)); }
};

// Every rank holding `mine`: its values are the minima and maxima, and P times them the sums.
struct FromOneRank {
  const AutoSummary& mine;
  int P;
  std::vector<SummaryField> values, sums;
  long long max(std::size_t i) const { return mine.*values.at(i); }
  long long min(std::size_t i) const { return mine.*values.at(i); }
  long long sum(std::size_t i) const { return P * (mine.*sums.at(i)); }
};

struct FieldOrder {
  std::vector<SummaryField> values, sums;
  void max(const char*, SummaryField f) { values.push_back(f); }
  void min(const char*, SummaryField f) { values.push_back(f); }
  void range(const char*, SummaryField f) { values.push_back(f); }
  void same(const char*, SummaryField f) { values.push_back(f); }
  void sum(const char*, SummaryField f) { sums.push_back(f); }
  void maxSum(const char*, SummaryField f) {
    values.push_back(f);
    sums.push_back(f);
  }
};
}  // namespace

SummarySlots contribute(const AutoSummary& mine, CollectiveCheck& check) {
  Contributor c{mine, check, {}};
  forEachField(c);
  return c.slots;
}

ReducedSummary reducedSummary(const CollectiveCheck& check, const SummarySlots& slots) {
  FromCheck source{check, slots};
  Reader<FromCheck> reader{source, {}};
  forEachField(reader);
  return reader.r;
}

ReducedSummary asIfEveryRank(const AutoSummary& mine, int P) {
  FieldOrder order;
  forEachField(order);
  FromOneRank source{mine, P, order.values, order.sums};
  Reader<FromOneRank> reader{source, {}};
  forEachField(reader);
  return reader.r;
}

}  // namespace planner
}  // namespace Trident
