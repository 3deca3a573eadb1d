import numpy as np, torch, glasstorch
F, G = torch.nn.functional, glasstorch.nn.functional
rng = np.random.default_rng(0)
bad = 0
for dt in (np.float32, np.float64):
    for n, shape in ((1, (2, 3, 11)), (2, (2, 3, 7, 9)), (3, (2, 2, 5, 6, 7))):
        x = rng.standard_normal(shape).astype(dt)
        pass
        gx, tx = glasstorch.from_numpy(x.copy()), torch.from_numpy(x.copy())
        modes = ["nearest", "nearest-exact", {1: "linear", 2: "bilinear", 3: "trilinear"}[n]] + (["bicubic"] if n == 2 else [])
        for mode in modes:
            for kw in ({"scale_factor": 2.0}, {"scale_factor": 1.7}, {"size": tuple(s * 2 + 1 for s in shape[2:])}, {"size": tuple(max(s // 2, 1) for s in shape[2:])}, {"scale_factor": 0.6}):
                for ac in ((None,) if "nearest" in mode else (False, True)):
                    extra = {} if ac is None else {"align_corners": ac}
                    g = G.interpolate(gx, mode=mode, **kw, **extra).numpy(); t = F.interpolate(tx, mode=mode, **kw, **extra).numpy()
                    ok = g.shape == t.shape and g.dtype == t.dtype and np.array_equal(g, t, equal_nan=True)
                    if not ok:
                        bad += 1; print(dt, n, mode, kw, ac, g.shape, t.shape)
print("bad", bad)
