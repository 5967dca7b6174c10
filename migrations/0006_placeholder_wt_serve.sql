-- Placeholder so that this branch numbers its migrations 1..n: 0006 belongs to the TCO
-- scenarios branch (0006_tco_scenarios.sql). DELETE THIS FILE when that one merges.
SELECT 1;
