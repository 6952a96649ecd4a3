"""The twin's engine model: step time (`steptime`), draft acceptance (`acceptance`), adaptive speculation
(`adaptive`), KV capacity (`memory`), the scheduler in model time (`engine`), its wall-clock driver (`runtime`) and
the calibration runs against the report (`calibrate`). Imports config and content; knows nothing of HTTP."""
