"""Bessel functions of the first and second kind, orders 0 and 1 — PyTorch's ``bessel_j0_forward``,
``bessel_j1_forward``, ``bessel_y0_forward`` and ``bessel_y1_forward`` in ``ATen/native/Math.h``.

PyTorch evaluates Cephes' rational approximations (the coefficient tables below are Cephes' ``j0.c``/``j1.c``),
but its loops evaluate every denominator polynomial from its first listed coefficient, where Cephes' ``p1evl``
adds an implicit leading 1: the small-argument branches (|x| <= 5) of all four are therefore a little off the true
function (about 1e-7 near x = 5 in float64), and scipy's correct values disagree with torch's by more than
float64's tolerance.  The same steps run here, in the same order, in the operand's dtype (float32 or float64):
each polynomial by Horner's rule from 0, the library calls (``cos``, ``sin``, ``log``, ``sqrt``) rounded once from
float64 as libm's are.

Invariant: a function maps an array of the compute dtype to an array of that dtype; both branches are evaluated
and chosen per element (the unused one may overflow or divide by zero, silently).
"""

from __future__ import annotations

import numpy as np

__all__ = ["bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1"]

# The asymptotic (|x| > 5) factors of order 0 and of order 1, shared by J and Y (Cephes' PP, PQ, QP, QQ).
_PP0 = (7.96936729297347051624e-04, 8.28352392107440799803e-02, 1.23953371646414299388e+00,
        5.44725003058768775090e+00, 8.74716500199817011941e+00, 5.30324038235394892183e+00,
        9.99999999999999997821e-01)
_PQ0 = (9.24408810558863637013e-04, 8.56288474354474431428e-02, 1.25352743901058953537e+00,
        5.47097740330417105182e+00, 8.76190883237069594232e+00, 5.30605288235394617618e+00,
        1.00000000000000000218e+00)
_QP0 = (-1.13663838898469149931e-02, -1.28252718670509318512e+00, -1.95539544257735972385e+01,
        -9.32060152123768231369e+01, -1.77681167980488050595e+02, -1.47077505154951170175e+02,
        -5.14105326766599330220e+01, -6.05014350600728481186e+00)
_QQ0 = (6.43178256118178023184e+01, 8.56430025976980587198e+02, 3.88240183605401609683e+03,
        7.24046774195652478189e+03, 5.93072701187316984827e+03, 2.06209331660327847417e+03,
        2.42005740240291393179e+02)
_PP1 = (7.62125616208173112003e-04, 7.31397056940917570436e-02, 1.12719608129684925192e+00,
        5.11207951146807644818e+00, 8.42404590141772420927e+00, 5.21451598682361504063e+00,
        1.00000000000000000254e+00)
_PQ1 = (5.71323128072548699714e-04, 6.88455908754495404082e-02, 1.10514232634061696926e+00,
        5.07386386128601488557e+00, 8.39985554327604159757e+00, 5.20982848682361821619e+00,
        9.99999999999999997461e-01)
_QP1 = (5.10862594750176621635e-02, 4.98213872951233449420e+00, 7.58238284132545283818e+01,
        3.66779609360150777800e+02, 7.10856304998926107277e+02, 5.97489612400613639965e+02,
        2.11688757100572135698e+02, 2.52070205858023719784e+01)
_QQ1 = (7.42373277035675149943e+01, 1.05644886038262816351e+03, 4.98641058337653607651e+03,
        9.56231892404756170795e+03, 7.99704160447350683650e+03, 2.82619278517639096600e+03,
        3.36093607810698293419e+02)

# The small-argument (|x| <= 5) rational functions: numerator R/Y P, denominator R/Y Q.
_RP0 = (-4.79443220978201773821e+09, 1.95617491946556577543e+12, -2.49248344360967716204e+14,
        9.70862251047306323952e+15)
_RQ0 = (4.99563147152651017219e+02, 1.73785401676374683123e+05, 4.84409658339962045305e+07,
        1.11855537045356834862e+10, 2.11277520115489217587e+12, 3.10518229857422583814e+14,
        3.18121955943204943306e+16, 1.71086294081043136091e+18)
_RP1 = (-8.99971225705559398224e+08, 4.52228297998194034323e+11, -7.27494245221818276015e+13,
        3.68295732863852883286e+15)
_RQ1 = (6.20836478118054335476e+02, 2.56987256757748830383e+05, 8.35146791431949253037e+07,
        2.21511595479792499675e+10, 4.74914122079991414898e+12, 7.84369607876235854894e+14,
        8.95222336184627338078e+16, 5.32278620332680085395e+18)
_YP0 = (1.55924367855235737965e+04, -1.46639295903971606143e+07, 5.43526477051876500413e+09,
        -9.82136065717911466409e+11, 8.75906394395366999549e+13, -3.46628303384729719441e+15,
        4.42733268572569800351e+16, -1.84950800436986690637e+16)
_YQ0 = (1.04128353664259848412e+03, 6.26107330137134956842e+05, 2.68919633393814121987e+08,
        8.64002487103935000337e+10, 2.02979612750105546709e+13, 3.17157752842975028269e+15,
        2.50596256172653059228e+17)
_YP1 = (1.26320474790178026440e+09, -6.47355876379160291031e+11, 1.14509511541823727583e+14,
        -8.12770255501325109621e+15, 2.02439475713594898196e+17, -7.78877196265950026825e+17)
_YQ1 = (5.94301592346128195359e+02, 2.35564092943068577943e+05, 7.34811944459721705660e+07,
        1.87601316108706159478e+10, 3.88231277496238566008e+12, 6.20557727146953693363e+14,
        6.87141087355300489866e+16, 3.97270608116560655612e+18)

# Squares of the first two zeros of J0 and of J1, pi/4, 3pi/4, sqrt(2/pi) and 2/pi.
_J0_Z1, _J0_Z2 = 5.78318596294678452118e+00, 3.04712623436620863991e+01
_J1_Z1, _J1_Z2 = 1.46819706421238932572e+01, 4.92184563216946036703e+01
_PIO4, _3PIO4 = 0.785398163397448309615660845819875721, 2.356194490192344928846982537459627163
_SQ2OPI, _TWOOPI = 0.797884560802865355879892119868763737, 0.636619772367581343075535053490057448


def _libm(fn, x):
    """``std::fn`` in x's dtype: evaluated in float64, rounded once."""
    return fn(x.astype(np.float64)).astype(x.dtype)


def _horner(coeffs, z):
    """PyTorch's loop ``r = r * z + c`` from r = 0 over ``coeffs`` (highest power first), in z's dtype."""
    c = z.dtype.type
    r = np.zeros_like(z)
    for k in coeffs:
        r = r * z + c(k)
    return r


def _asymptotic(x, w, order0: bool, sine_first: bool):
    """The |x| > 5 branch: ``(P(w) cos(x - phase) -+ 5/x Q(w) sin(x - phase)) sqrt(2/pi) / sqrt(x)`` with J's
    cosine leading, Y's sine (``sine_first``) and Y's second term added."""
    c = x.dtype.type
    pp, pq, qp, qq = (_PP0, _PQ0, _QP0, _QQ0) if order0 else (_PP1, _PQ1, _QP1, _QQ1)
    p = _horner(pp, w) / _horner(pq, w)
    q = c(5.0) / x * (_horner(qp, w) / _horner(qq, w))
    shifted = x - c(_PIO4 if order0 else _3PIO4)
    cos, sin = _libm(np.cos, shifted), _libm(np.sin, shifted)
    r = p * sin + q * cos if sine_first else p * cos - q * sin
    return r * c(_SQ2OPI) / _libm(np.sqrt, x)


def _w0(x):
    return x.dtype.type(25.0) / (x * x)


def _w1(x):
    f = x.dtype.type(5.0) / x
    return f * f


def bessel_j0(x):
    c = x.dtype.type
    with np.errstate(all="ignore"):
        x = np.abs(x)
        z = x * x
        small = (z - c(_J0_Z1)) * (z - c(_J0_Z2)) * _horner(_RP0, z) / _horner(_RQ0, z)
        small = np.where(x < c(1e-5), c(1.0) - z / c(4.0), small)
        return np.where(x <= c(5.0), small, _asymptotic(x, _w0(x), True, False))


def _j1_nonnegative(x):
    c = x.dtype.type
    z = x * x
    small = _horner(_RP1, z) / _horner(_RQ1, z) * x * (z - c(_J1_Z1)) * (z - c(_J1_Z2))
    return np.where(x <= c(5.0), small, _asymptotic(x, _w1(x), False, False))


def bessel_j1(x):
    with np.errstate(all="ignore"):
        negative = x < 0  # -0.0 is not: it keeps its sign through the odd formula, as PyTorch's
        r = _j1_nonnegative(np.where(negative, -x, x))
        return np.where(negative, -r, r)


def bessel_y0(x):
    c = x.dtype.type
    with np.errstate(all="ignore"):
        z = x * x
        small = _horner(_YP0, z) / _horner(_YQ0, z) + c(_TWOOPI) * _libm(np.log, x) * bessel_j0(x)
        small = np.where(x == 0, c(-np.inf), np.where(x < 0, c(np.nan), small))
        return np.where(x <= c(5.0), small, _asymptotic(x, _w0(x), True, True))


def bessel_y1(x):
    c = x.dtype.type
    with np.errstate(all="ignore"):
        z = x * x
        j1 = _j1_nonnegative(np.abs(x))
        small = x * (_horner(_YP1, z) / _horner(_YQ1, z)) + c(_TWOOPI) * (j1 * _libm(np.log, x) - c(1.0) / x)
        small = np.where(x == 0, c(-np.inf), np.where(x < 0, c(np.nan), small))
        return np.where(x <= c(5.0), small, _asymptotic(x, _w1(x), False, True))
