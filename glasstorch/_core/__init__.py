"""L0 — pure Python foundations: dtypes and promotion, shape/stride rules, devices, flags."""
