// A Fabric message in a Plan or Compare: in a request, an override of the offer's (or the
// GPU's default) fabric; in an answer, the fabric the estimate assumed. (Catalog fabric rows,
// with their sources, are the store's and the admin RPCs' business.)
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "capplan/v1/catalog.pb.h"
#include "core/catalog.h"
#include "core/fabric.h"

namespace capplan::server {

// The caller's override: `name` must be a catalog fabric (InvalidArgument naming
// `field`.name otherwise); UNSPECIFIED enums and zero numbers keep the base fabric's value;
// every number given must be in the range a catalog fabric may have (InvalidArgument naming
// `field`.<number> and the range). `source` is ignored: an override is the caller's figure.
absl::StatusOr<core::FabricOverride> FabricOverrideFrom(const core::CatalogView& catalog, const capplan::v1::Fabric& f,
                                                        const std::string& field);

// The fabric an option's estimate assumed, under the catalog name it came from ("" for the
// fallback; "+override" when the caller changed it).
}  // namespace capplan::server
