// Unit constants. Quantities in capplan carry their unit in their name (memory_bytes,
// duration_seconds); these constants are the only place conversions are spelled out.
#pragma once

namespace capplan::units {

inline constexpr double kKB = 1e3;
inline constexpr double kMB = 1e6;
inline constexpr double kGB = 1e9;  // decimal, as vendor datasheets and papers quote memory
inline constexpr double kTB = 1e12;
inline constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

inline constexpr double kTera = 1e12;  // TFLOPS -> FLOP/s
inline constexpr double kGiga = 1e9;

inline constexpr double kSecondsPerHour = 3600.0;
inline constexpr double kHoursPerMonth = 730.0;  // 8760 h / 12
inline constexpr double kSecondsPerMonth = kHoursPerMonth * kSecondsPerHour;
inline constexpr double kWattHoursPerKilowattHour = 1000.0;
inline constexpr double kMillion = 1e6;

}  // namespace capplan::units
