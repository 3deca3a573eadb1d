"""Benchmark cases: each maps a library module (glasstorch or torch) to a zero-argument callable.

The recipe is written once against the shared API, so both libraries run exactly the same code.
"""

from __future__ import annotations


def _view_small(lib):
    x = lib.arange(24.0).view(2, 3, 4)
    return lambda: x.view(6, 4)


def _transpose_small(lib):
    x = lib.arange(24.0).view(2, 3, 4)
    return lambda: x.transpose(0, 2)


def _getitem_basic(lib):
    x = lib.arange(24.0).view(2, 3, 4)
    return lambda: x[1, :, ::2]


def _reshape_copy(lib):
    x = lib.arange(24.0).view(2, 3, 4).transpose(0, 2)
    return lambda: x.reshape(24)


def _zeros_small(lib):
    return lambda: lib.zeros(2, 3)


def _tensor_from_list(lib):
    data = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    return lambda: lib.tensor(data)


def _contiguous_1m(lib):
    x = lib.ones(1000, 1000).t()
    return lambda: x.contiguous()


def _clone_1m(lib):
    x = lib.ones(1000, 1000)
    return lambda: x.clone()


def _copy_cast_1m(lib):
    x = lib.ones(1000, 1000)
    y = lib.empty(1000, 1000, dtype=lib.float64)
    return lambda: y.copy_(x)


CASES = {
    "view (2,3,4)->(6,4)": _view_small,
    "transpose (2,3,4) 0<->2": _transpose_small,
    "getitem x[1, :, ::2]": _getitem_basic,
    "reshape needing a copy (24 el.)": _reshape_copy,
    "zeros(2, 3)": _zeros_small,
    "tensor(2x3 nested list)": _tensor_from_list,
    "contiguous() of 1000x1000 .t()": _contiguous_1m,
    "clone() 1M float32": _clone_1m,
    "copy_ float32->float64 1M": _copy_cast_1m,
}


# -- dispatcher overhead and pointwise throughput (operators issue) ---------------------------------------
def _add_1elem(lib):
    a, b = lib.ones(1), lib.ones(1)
    return lambda: lib.add(a, b)


def _add_operator_1elem(lib):
    a, b = lib.ones(1), lib.ones(1)
    return lambda: a + b


def _add_method_scalar_1elem(lib):
    a = lib.ones(1)
    return lambda: a.add(1.0)


def _add_1m(lib):
    a, b = lib.ones(1_000_000), lib.ones(1_000_000)
    return lambda: lib.add(a, b)


def _mul_inplace_1m(lib):
    a, b = lib.ones(1_000_000), lib.ones(1_000_000)
    return lambda: a.mul_(b)


def _sin_1m(lib):
    a = lib.ones(1_000_000)
    return lambda: lib.sin(a)


def _add_broadcast_1m(lib):
    a, b = lib.ones(1000, 1000), lib.ones(1000)
    return lambda: a + b


CASES.update({
    "add(1-el, 1-el) per-call overhead": _add_1elem,
    "a + b (1-el) per-call overhead": _add_operator_1elem,
    "a.add(1.0) (1-el) per-call overhead": _add_method_scalar_1elem,
    "add 1M float32": _add_1m,
    "mul_ in place 1M float32": _mul_inplace_1m,
    "sin 1M float32": _sin_1m,
    "add broadcast (1000,1000)+(1000,)": _add_broadcast_1m,
})


# -- the per-call target with autograd recording, and more pointwise throughput ---------------------------
def _add_operator_1elem_grad(lib):
    a, b = lib.ones(1, requires_grad=True), lib.ones(1, requires_grad=True)
    return lambda: a + b


def _add_1elem_grad(lib):
    a, b = lib.ones(1, requires_grad=True), lib.ones(1, requires_grad=True)
    return lambda: lib.add(a, b)


def _mul_1m(lib):
    a, b = lib.ones(1_000_000), lib.ones(1_000_000)
    return lambda: lib.mul(a, b)


def _relu_1m(lib):
    a = lib.linspace(-1.0, 1.0, 1_000_000)
    return lambda: lib.relu(a)


def _exp_1m(lib):
    a = lib.linspace(-1.0, 1.0, 1_000_000)
    return lambda: lib.exp(a)


CASES.update({
    "a + b (1-el, requires_grad) per-call": _add_operator_1elem_grad,
    "add(1-el, 1-el, requires_grad) per-call": _add_1elem_grad,
    "mul 1M float32": _mul_1m,
    "relu 1M float32": _relu_1m,
    "exp 1M float32": _exp_1m,
})


# -- GELU, the hottest pointwise op of GPT training (erf forward, erf and exp in the backward) --------------
def _gelu_fwd_bwd_1m(lib):
    x = lib.linspace(-4.0, 4.0, 1_000_000).requires_grad_()
    g = lib.ones(1_000_000)

    def run():
        lib.nn.functional.gelu(x).backward(g)
        x.grad = None
    return run


def _erf_1m(lib):
    a = lib.linspace(-3.0, 3.0, 1_000_000)
    return lambda: lib.erf(a)


CASES.update({
    "gelu fwd+bwd 1M float32": _gelu_fwd_bwd_1m,
    "erf 1M float32": _erf_1m,
})


# -- gelu's derivative on its own: the fused ``aten::gelu_backward`` kernel (erf and exp per element) -------------
def _gelu_backward_1m(lib):
    x = lib.linspace(-4.0, 4.0, 1_000_000)
    g = lib.ones(1_000_000)
    return lambda: lib.ops.aten.gelu_backward(g, x)


CASES.update({
    "gelu_backward 1M float32": _gelu_backward_1m,
})


# -- random streams: torch's mt19937 draws and transforms (glasstorch/_ops/kernels/cpu/random.py) -----------------
def _rand_1m(lib):
    return lambda: lib.rand(1_000_000)


def _randn_1m(lib):
    return lambda: lib.randn(1_000_000)


def _randperm_1m(lib):
    return lambda: lib.randperm(1_000_000)


CASES.update({
    "rand 1M float32": _rand_1m,
    "randn 1M float32": _randn_1m,
    "randperm 1M": _randperm_1m,
})


# -- torch.linalg on 256x256 float32 (one LAPACK factorization each: getrf+getrs, syevd, gesdd) --------------------
def _matrix_256(lib, spd=False):
    lib.manual_seed(0)
    a = lib.randn(256, 256)
    return a @ a.mT + 256 * lib.eye(256) if spd else a + 16 * lib.eye(256)


def _inv_256(lib):
    a = _matrix_256(lib)
    return lambda: lib.linalg.inv(a)


def _solve_256(lib):
    a, b = _matrix_256(lib), lib.ones(256, 16)
    return lambda: lib.linalg.solve(a, b)


def _eigh_256(lib):
    a = _matrix_256(lib, spd=True)
    return lambda: lib.linalg.eigh(a)


def _svd_256(lib):
    a = _matrix_256(lib)
    return lambda: lib.linalg.svd(a)


def _cholesky_256(lib):
    a = _matrix_256(lib, spd=True)
    return lambda: lib.linalg.cholesky(a)


def _det_batched(lib):
    a = lib.randn(512, 4, 4) + 4 * lib.eye(4)
    return lambda: lib.linalg.det(a)


def _matrix_exp_256(lib):
    lib.manual_seed(0)
    a = lib.randn(256, 256) / 16  # 1-norm ~13: degree 18 with a few squarings
    return lambda: lib.linalg.matrix_exp(a)


def _householder_product_256(lib):
    lib.manual_seed(0)
    a, tau = lib.randn(256, 256), lib.rand(256)
    return lambda: lib.linalg.householder_product(a, tau)


CASES.update({
    "linalg.matrix_exp 256x256 float32": _matrix_exp_256,
    "linalg.householder_product 256x256 float32": _householder_product_256,
    "linalg.inv 256x256 float32": _inv_256,
    "linalg.solve 256x256, 16 rhs float32": _solve_256,
    "linalg.eigh 256x256 float32": _eigh_256,
    "linalg.svd 256x256 float32": _svd_256,
    "linalg.cholesky 256x256 float32": _cholesky_256,
    "linalg.det 512 batched 4x4 float32": _det_batched,
})


# -- torch.fft (scipy's pocketfft against torch's CPU FFT) --------------------------------------------------------
def _signal_1m(lib, complex_=False):
    lib.manual_seed(0)
    x = lib.randn(1 << 20)
    return lib.complex(x, lib.randn(1 << 20)) if complex_ else x


def _fft_1m(lib):
    x = _signal_1m(lib, complex_=True)
    return lambda: lib.fft.fft(x)


def _rfft_1m(lib):
    x = _signal_1m(lib)
    return lambda: lib.fft.rfft(x)


def _irfft_1m(lib):
    z = lib.fft.rfft(_signal_1m(lib))
    return lambda: lib.fft.irfft(z)


def _fft2_256(lib):
    lib.manual_seed(0)
    x = lib.complex(lib.randn(256, 256), lib.randn(256, 256))
    return lambda: lib.fft.fft2(x)


def _rfft2_256(lib):
    lib.manual_seed(0)
    x = lib.randn(256, 256)
    return lambda: lib.fft.rfft2(x)


CASES.update({
    "fft.fft 1M complex64": _fft_1m,
    "fft.rfft 1M float32": _rfft_1m,
    "fft.irfft 1M complex64": _irfft_1m,
    "fft.fft2 256x256 complex64": _fft2_256,
    "fft.rfft2 256x256 float32": _rfft2_256,
})


# -- torch.special on 1M float32 elements (scipy.special kernels: the double routine, rounded once) ---------------
def _special_1m(fn, low, high):
    def case(lib):
        a = lib.linspace(low, high, 1_000_000)
        f = fn(lib)
        return lambda: f(a)
    return case


CASES.update({
    "lgamma 1M float32": _special_1m(lambda lib: lib.lgamma, 0.1, 20.0),
    "digamma 1M float32": _special_1m(lambda lib: lib.digamma, 0.1, 20.0),
    "special.i0e 1M float32": _special_1m(lambda lib: lib.special.i0e, -20.0, 20.0),
    "special.bessel_j0 1M float32": _special_1m(lambda lib: lib.special.bessel_j0, -20.0, 20.0),
    "special.ndtri 1M float32": _special_1m(lambda lib: lib.special.ndtri, 0.001, 0.999),
    "special.log_ndtr 1M float32": _special_1m(lambda lib: lib.special.log_ndtr, -10.0, 5.0),
    "sinc 1M float32": _special_1m(lambda lib: lib.sinc, -10.0, 10.0),
})


# -- pooling and resampling on 1M-element inputs (window offsets / index gathers over whole outputs) ---------------
def _x_4d(lib, shape=(4, 16, 128, 128)):
    return lib.linspace(-3.0, 3.0, 4 * 16 * 128 * 128).reshape(shape)


def _pool_case(fn):
    def case(lib):
        x = _x_4d(lib)
        f = fn(lib.nn.functional)
        return lambda: f(x)
    return case


def _pool3d_case(fn):
    def case(lib):
        x = lib.linspace(-3.0, 3.0, 1 << 20).reshape(2, 8, 32, 64, 32)
        f = fn(lib.nn.functional)
        return lambda: f(x)
    return case


CASES.update({
    "max_pool3d k=2 1M float32": _pool3d_case(lambda F: lambda x: F.max_pool3d(x, 2)),
    "avg_pool3d k=3 s=2 p=1 1M float32": _pool3d_case(lambda F: lambda x: F.avg_pool3d(x, 3, 2, 1)),
    "adaptive_max_pool2d 1M -> 32x32 float32": _pool_case(lambda F: lambda x: F.adaptive_max_pool2d(x, 32)),
    "interpolate nearest x2 1M float32": _pool_case(lambda F: lambda x: F.interpolate(x, scale_factor=2.0)),
    "interpolate bilinear x2 1M float32": _pool_case(
        lambda F: lambda x: F.interpolate(x, scale_factor=2.0, mode="bilinear")),
    "interpolate bicubic 256x256 float32": _pool_case(
        lambda F: lambda x: F.interpolate(x[:1, :1], size=(256, 256), mode="bicubic")),
    "unfold k=3 1M float32": _pool_case(lambda F: lambda x: F.unfold(x, 3, padding=1)),
    "pixel_shuffle r=2 1M float32": _pool_case(lambda F: lambda x: F.pixel_shuffle(x, 2)),
})


# -- nn.functional (issue 20/21): pairwise distances and the 3-d / transposed convolutions ------------------------
def _pdist_256(lib):
    x = lib.randn(256, 256)
    return lambda: lib.pdist(x)


def _conv3d_small(lib):
    x, w = lib.randn(2, 8, 16, 16, 16), lib.randn(16, 8, 3, 3, 3)
    return lambda: lib.nn.functional.conv3d(x, w, padding=1)


def _conv_transpose2d_256(lib):
    x, w = lib.randn(1, 8, 128, 128), lib.randn(8, 4, 3, 3)
    return lambda: lib.nn.functional.conv_transpose2d(x, w, stride=2, padding=1, output_padding=1)


CASES.update({
    "pdist 256x256 float32": _pdist_256,
    "conv3d (2,8,16^3) * (16,8,3^3)": _conv3d_small,
    "conv_transpose2d (1,8,128,128) stride 2": _conv_transpose2d_256,
})


# -- statistics reductions (stats.yaml): 1M-element and 256x256 inputs --------------------------------------------
def _stats_1m(fn):
    def case(lib):
        lib.manual_seed(0)
        x = lib.randn(1000, 1000)
        return lambda: fn(lib, x)
    return case


def _cdist_256(p):
    def case(lib):
        lib.manual_seed(0)
        a, b = lib.randn(256, 64), lib.randn(256, 64)
        return lambda: lib.cdist(a, b, p)
    return case


def _index_reduce_1m(lib):
    lib.manual_seed(0)
    x, src = lib.randn(1000, 1000), lib.randn(2000, 1000)
    idx = lib.randint(0, 1000, (2000,))
    return lambda: x.index_reduce(0, idx, src, "amax")


CASES.update({
    "aminmax 1M float32 dim=1": _stats_1m(lambda lib, x: lib.aminmax(x, dim=1)),
    "logcumsumexp 1M float32 dim=1": _stats_1m(lambda lib, x: lib.logcumsumexp(x, 1)),
    "histc 1M float32": _stats_1m(lambda lib, x: lib.histc(x, bins=100)),
    "histogram 1M float32 100 bins": _stats_1m(lambda lib, x: lib.histogram(x, 100)),
    "quantile 1M float32 dim=1": _stats_1m(lambda lib, x: lib.quantile(x, 0.3, dim=1)),
    "isin 1M float32 vs 100": _stats_1m(lambda lib, x: lib.isin(x, x[0, :100])),
    "renorm 1M float32": _stats_1m(lambda lib, x: lib.renorm(x, 2, 0, 1.0)),
    "cov 256x256": lambda lib: (lambda x: (lambda: lib.cov(x)))(lib.randn(256, 256)),
    "cdist 256x256x64 p=2": _cdist_256(2.0),
    "cdist 256x256x64 p=1": _cdist_256(1.0),
    "index_reduce amax 1M float32": _index_reduce_1m,
    "kthvalue 1M float32 dim=1": _stats_1m(lambda lib, x: lib.kthvalue(x, 300, 1)),
})


# -- recurrent layers (issue 21) ---------------------------------------------------------------------------------
def _lstm_lm_step(lib):
    """One training step of a 2-layer LSTM language model: embedding, LSTM, linear, cross_entropy, backward."""
    lib.manual_seed(0)
    V, H, T, B = 2000, 256, 35, 20
    emb, lstm, head = lib.nn.Embedding(V, H), lib.nn.LSTM(H, H, num_layers=2), lib.nn.Linear(H, V)
    params = [*emb.parameters(), *lstm.parameters(), *head.parameters()]
    tokens, targets = lib.randint(0, V, (T, B)), lib.randint(0, V, (T * B,))

    def step():
        out, _ = lstm(emb(tokens))
        loss = lib.nn.functional.cross_entropy(head(out).view(T * B, V), targets)
        loss.backward()
        for p in params:
            p.grad = None
    return step


CASES.update({
    "2-layer LSTM LM step (hidden 256, seq 35, batch 20, vocab 2000)": _lstm_lm_step,
})
