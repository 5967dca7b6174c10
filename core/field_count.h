// The number of members of an aggregate, counted at compile time: the most initializers
// `T{...}` accepts. A cache key that must read every field of a struct asserts this count
// next to the struct's size, so a field added into existing padding (same size) still stops
// the build. std::array and nested aggregates count as one member; a C array counts each
// element (brace elision).
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>

namespace capplan::core {

namespace field_count_internal {

// Converts to any member type; only ever named in unevaluated operands (decltype).
struct AnyMember {
  template <typename T>
  operator T() const noexcept;  // NOLINT(google-explicit-constructor): converting is its job
};

template <typename T, typename Indices, typename = void>
struct BraceConstructible : std::false_type {};
template <typename T, std::size_t... kIndex>
struct BraceConstructible<T, std::index_sequence<kIndex...>,
                          std::void_t<decltype(T{(static_cast<void>(kIndex), AnyMember{})...})>> : std::true_type {};

inline constexpr std::size_t kMaxCountedFields = 128;

}  // namespace field_count_internal

template <typename T, std::size_t kTried = 0>
constexpr std::size_t FieldCount() {
  using field_count_internal::BraceConstructible;
  if constexpr (kTried < field_count_internal::kMaxCountedFields &&
                BraceConstructible<T, std::make_index_sequence<kTried + 1>>::value) {
    return FieldCount<T, kTried + 1>();
  } else {
    return kTried;
  }
}

}  // namespace capplan::core
