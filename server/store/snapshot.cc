// Snapshot tables: building, indexing and sharing them, and the lookups the planner makes.
#include <algorithm>
#include <chrono>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "server/store/catalog.h"

namespace capplan::store {

namespace {

int64_t NowUnixSeconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

template <typename Row>
const Row* Find(const Table<Row>& t, const std::string& key) {
  auto it = t.index.find(key);
  return it == t.index.end() ? nullptr : &t.rows[it->second];
}

bool PriceOrder(const PriceRow& a, const PriceRow& b) {
  return std::tie(a.kind, a.effective_unix_seconds, a.id) < std::tie(b.kind, b.effective_unix_seconds, b.id);
}

template <typename T>
std::shared_ptr<const T> OrEmpty(std::shared_ptr<const T> p) {
  return p != nullptr ? std::move(p) : std::make_shared<const T>();
}

size_t CountPrices(const std::vector<std::shared_ptr<const PriceList>>& lists) {
  size_t n = 0;
  for (const auto& l : lists) n += l != nullptr ? l->size() : 0;
  return n;
}

}  // namespace

std::string OfferKey(absl::string_view provider, absl::string_view type, absl::string_view region) {
  return absl::StrCat(provider, "\x1f", type, "\x1f", region);
}

std::shared_ptr<const Table<GpuRow>> MakeGpuTable(std::vector<GpuRow> rows) {
  auto t = std::make_shared<Table<GpuRow>>();
  t->rows = std::move(rows);
  for (size_t i = 0; i < t->rows.size(); ++i) t->index[t->rows[i].spec.name] = i;
  return t;
}

std::shared_ptr<const Table<ModelRow>> MakeModelTable(std::vector<ModelRow> rows) {
  auto t = std::make_shared<Table<ModelRow>>();
  t->rows = std::move(rows);
  for (size_t i = 0; i < t->rows.size(); ++i) t->index[t->rows[i].arch.name] = i;
  return t;
}

std::shared_ptr<const Table<InstanceRow>> MakeInstanceTable(std::vector<InstanceRow> rows) {
  auto t = std::make_shared<Table<InstanceRow>>();
  t->rows = std::move(rows);
  t->index.reserve(t->rows.size());
  for (size_t i = 0; i < t->rows.size(); ++i) {
    const InstanceRow& r = t->rows[i];
    t->index[OfferKey(r.provider, r.instance_type, r.region)] = i;
  }
  return t;
}

std::shared_ptr<const Table<FabricRow>> MakeFabricTable(std::vector<FabricRow> rows) {
  auto t = std::make_shared<Table<FabricRow>>();
  t->rows = std::move(rows);
  for (size_t i = 0; i < t->rows.size(); ++i) t->index[t->rows[i].name] = i;
  return t;
}

std::shared_ptr<const Table<ElectricityRow>> MakeElectricityTable(std::vector<ElectricityRow> rows) {
  auto t = std::make_shared<Table<ElectricityRow>>();
  t->rows = std::move(rows);
  for (size_t i = 0; i < t->rows.size(); ++i) t->index[t->rows[i].region] = i;
  return t;
}

std::shared_ptr<const std::vector<std::shared_ptr<const PriceList>>> MakePriceLists(const Table<InstanceRow>& instances,
                                                                                    std::vector<PriceRow> prices) {
  std::vector<PriceList> grouped(instances.rows.size());
  for (PriceRow& p : prices) {
    auto it = instances.index.find(OfferKey(p.provider, p.instance_type, p.region));
    if (it != instances.index.end()) grouped[it->second].push_back(std::move(p));
  }
  auto lists = std::make_shared<std::vector<std::shared_ptr<const PriceList>>>(grouped.size());
  for (size_t i = 0; i < grouped.size(); ++i) {
    if (grouped[i].empty()) continue;
    std::sort(grouped[i].begin(), grouped[i].end(), PriceOrder);
    (*lists)[i] = std::make_shared<const PriceList>(std::move(grouped[i]));
  }
  return lists;
}

std::shared_ptr<const std::vector<std::shared_ptr<const PriceList>>> WithPrice(
    const std::vector<std::shared_ptr<const PriceList>>& lists, size_t position, const PriceRow& row) {
  auto next = std::make_shared<std::vector<std::shared_ptr<const PriceList>>>(lists);
  auto list = std::make_shared<PriceList>();
  if (lists[position] != nullptr) *list = *lists[position];
  list->insert(std::upper_bound(list->begin(), list->end(), row, PriceOrder), row);
  (*next)[position] = std::move(list);
  return next;
}

CatalogTables WithInstance(const CatalogTables& tables, const InstanceRow* row, const std::string& erase_key) {
  CatalogTables next = tables;
  const Table<InstanceRow>& old = *tables.instances;
  const std::string key = row != nullptr ? OfferKey(row->provider, row->instance_type, row->region) : erase_key;
  auto found = old.index.find(key);
  if (row != nullptr && found != old.index.end()) {
    // Same key: the row changes in place, positions and prices stay.
    auto t = std::make_shared<Table<InstanceRow>>(old);
    t->rows[found->second] = *row;
    next.instances = std::move(t);
    return next;
  }
  if (row == nullptr && found == old.index.end()) return next;
  std::vector<InstanceRow> rows = old.rows;
  auto lists = std::make_shared<std::vector<std::shared_ptr<const PriceList>>>(*tables.prices);
  if (row != nullptr) {
    auto order = [](const InstanceRow& a, const InstanceRow& b) {
      return std::tie(a.provider, a.instance_type, a.region) < std::tie(b.provider, b.instance_type, b.region);
    };
    const auto at = std::lower_bound(rows.begin(), rows.end(), *row, order);
    lists->insert(lists->begin() + (at - rows.begin()), nullptr);
    rows.insert(at, *row);
  } else {
    rows.erase(rows.begin() + static_cast<std::ptrdiff_t>(found->second));
    lists->erase(lists->begin() + static_cast<std::ptrdiff_t>(found->second));
  }
  next.instances = MakeInstanceTable(std::move(rows));
  next.prices = std::move(lists);
  return next;
}

namespace {

core::ServingBenchmark ServingFrom(const BenchmarkRow& b, const ModelRow& m) {
  core::ServingBenchmark s;
  s.id = b.id;
  s.gpu_name = b.gpu_name;
  s.model = m.arch;
  s.precision = b.precision;
  s.gpu_count = b.gpu_count;
  s.batch = b.batch_size;
  s.prompt_tokens = b.sequence_tokens;
  s.output_tokens = b.output_tokens;
  s.value = b.measured_value;
  s.unit = b.unit;
  s.citation = b.source.citation;
  s.engine = b.engine;
  return s;
}

core::TrainingBenchmark TrainingFrom(const BenchmarkRow& b, const ModelRow& m, const Table<GpuRow>& gpus,
                                     const Table<FabricRow>& fabrics) {
  core::TrainingBenchmark t;
  t.id = b.id;
  t.gpu_name = b.gpu_name;
  t.model = m.arch;
  t.precision = b.precision;
  t.method = b.method;
  t.gpu_count = b.gpu_count;
  t.batch_sequences = b.batch_size;
  t.sequence_length = b.sequence_tokens;
  t.value = b.measured_value;
  t.unit = b.unit;
  t.layout.tp = b.tensor_parallel;
  t.layout.pp = b.pipeline_parallel;
  t.layout.dp = b.data_parallel;
  t.layout.cp = b.context_parallel;
  t.layout.ep = b.expert_parallel;
  t.layout.vpp = b.virtual_pipeline_stages;
  t.figure = b.figure;
  std::string fabric_name = b.fabric_name;
  if (fabric_name.empty()) {
    if (const GpuRow* g = Find(gpus, b.gpu_name)) fabric_name = g->default_fabric_name;
  }
  if (!fabric_name.empty()) {
    if (const FabricRow* f = Find(fabrics, fabric_name)) t.fabric = f->fabric;
  }
  t.citation = b.source.citation;
  return t;
}

}  // namespace

std::shared_ptr<const Calibration> MakeCalibration(const Table<ModelRow>& models,
                                                   const std::vector<BenchmarkRow>& benchmarks,
                                                   const Table<GpuRow>& gpus, const Table<FabricRow>& fabrics) {
  auto c = std::make_shared<Calibration>();
  for (const BenchmarkRow& b : benchmarks) {
    const ModelRow* m = Find(models, b.model_name);
    if (m == nullptr) continue;
    if (b.workload == core::WorkloadKind::kServing) {
      c->serving.push_back(ServingFrom(b, *m));
    } else {
      // A step time without the batch it was measured at says nothing about throughput.
      if (b.unit == core::MeasuredUnit::kSecondsPerStep && b.batch_size <= 0) continue;
      c->training.push_back(TrainingFrom(b, *m, gpus, fabrics));
    }
  }
  return c;
}

CatalogSnapshot::CatalogSnapshot(CatalogTables t)
    : tables_{OrEmpty(std::move(t.gpus)),    OrEmpty(std::move(t.models)),     OrEmpty(std::move(t.instances)),
              OrEmpty(std::move(t.prices)),  OrEmpty(std::move(t.benchmarks)), OrEmpty(std::move(t.calibration)),
              OrEmpty(std::move(t.fabrics)), OrEmpty(std::move(t.electricity))},
      gpus(tables_.gpus->rows),
      models(tables_.models->rows),
      instances(tables_.instances->rows),
      benchmarks(*tables_.benchmarks),
      fabrics(tables_.fabrics->rows),
      electricity(tables_.electricity->rows),
      training_benchmarks(tables_.calibration->training),
      serving_benchmarks(tables_.calibration->serving),
      price_count(CountPrices(*tables_.prices)) {}

const GpuRow* CatalogSnapshot::FindGpu(absl::string_view name) const { return Find(*tables_.gpus, std::string(name)); }

const FabricRow* CatalogSnapshot::FindFabric(absl::string_view name) const {
  return Find(*tables_.fabrics, std::string(name));
}

const ElectricityRow* CatalogSnapshot::FindElectricity(absl::string_view region) const {
  return Find(*tables_.electricity, std::string(region));
}

const ModelRow* CatalogSnapshot::FindModel(absl::string_view name) const {
  return Find(*tables_.models, std::string(name));
}

int64_t CatalogSnapshot::InstancePosition(absl::string_view provider, absl::string_view type,
                                          absl::string_view region) const {
  auto it = tables_.instances->index.find(OfferKey(provider, type, region));
  return it == tables_.instances->index.end() ? -1 : static_cast<int64_t>(it->second);
}

const InstanceRow* CatalogSnapshot::FindInstance(absl::string_view provider, absl::string_view type,
                                                 absl::string_view region) const {
  const int64_t i = InstancePosition(provider, type, region);
  return i < 0 ? nullptr : &instances[static_cast<size_t>(i)];
}

const PriceRow* CatalogSnapshot::PriceAt(const InstanceRow& instance, PriceKind kind,
                                         int64_t as_of_unix_seconds) const {
  int64_t pos;
  if (&instance >= instances.data() && &instance < instances.data() + instances.size()) {
    pos = &instance - instances.data();  // the Plan path: no key to build
  } else {
    pos = InstancePosition(instance.provider, instance.instance_type, instance.region);
  }
  if (pos < 0) return nullptr;
  const std::shared_ptr<const PriceList>& list = (*tables_.prices)[static_cast<size_t>(pos)];
  if (list == nullptr) return nullptr;
  if (as_of_unix_seconds <= 0) as_of_unix_seconds = NowUnixSeconds();
  const PriceRow* best = nullptr;
  for (const PriceRow& p : *list) {
    if (p.kind != kind) continue;
    if (p.effective_unix_seconds > as_of_unix_seconds) continue;
    best = &p;  // sorted by effective time then id: the last match wins
  }
  return best;
}

std::vector<const PriceRow*> CatalogSnapshot::PriceHistory(absl::string_view provider, absl::string_view type,
                                                           absl::string_view region) const {
  std::vector<const PriceRow*> out;
  const int64_t pos = InstancePosition(provider, type, region);
  if (pos < 0 || (*tables_.prices)[static_cast<size_t>(pos)] == nullptr) return out;
  for (const PriceRow& p : *(*tables_.prices)[static_cast<size_t>(pos)]) out.push_back(&p);
  std::stable_sort(out.begin(), out.end(), [](const PriceRow* a, const PriceRow* b) {
    return std::tie(a->effective_unix_seconds, a->id) < std::tie(b->effective_unix_seconds, b->id);
  });
  return out;
}

int64_t CatalogSnapshot::OldestCurrentPriceUnixSeconds() const {
  int64_t oldest = 0;
  const int64_t now = NowUnixSeconds();
  for (const InstanceRow& i : instances) {
    const PriceRow* p = PriceAt(i, PriceKind::kOnDemand, now);
    if (p != nullptr && (oldest == 0 || p->effective_unix_seconds < oldest)) {
      oldest = p->effective_unix_seconds;
    }
  }
  return oldest;
}

}  // namespace capplan::store
