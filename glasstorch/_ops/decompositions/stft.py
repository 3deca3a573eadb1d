"""``stft`` and ``istft`` (CompositeImplicitAutograd) — PyTorch's ``native/SpectralOps.cpp``, over ``_fft_r2c``,
``_fft_c2r`` and ``_fft_c2c``.

``stft`` frames the (1-d or batched 2-d) signal with a strided view (frame ``t`` starts at ``t * hop_length``, or
its window does, with ``align_to_window``), multiplies each frame by the window (zero-padded on both sides to
``n_fft`` when shorter) and transforms the last dim; the result is ``(batch, freq, frames)``, complex or viewed as
real pairs.  ``stft.center`` first pads
``n_fft // 2`` points on both sides (``pad_mode``).  ``istft`` inverts each frame, windows it again and adds the
frames back together (overlap-add, as ``index_add``), dividing by the overlap-added squared window.

Invariant: no kernel is called directly; everything dispatches, so autograd sees the primitives.
"""

from __future__ import annotations

from ..._core import dtype as _dt
from ..._core.user_warning import warn as _user_warn
from ..aten import aten
from ..factories import arange_impl, full_impl

__all__ = ["stft", "stft_center", "istft"]

_WARNED: set = set()  # TORCH_WARN_ONCE: each warning once per process


def _warn_once(key: str, message: str) -> None:
    if key not in _WARNED:
        _WARNED.add(key)
        _user_warn(message)


def _opt(v) -> str:
    return "None" if v is None else str(int(v))


def _window_text(window) -> str:
    return "None" if window is None else f"torch.{window.dtype._short}Tensor{{{list(window.sizes)}}}"


def _stft_repr(x, n_fft, hop, win, window, normalized, onesided, return_complex, align) -> str:
    return (f"stft(torch.{x.dtype._short}Tensor{list(x.sizes)}, n_fft={n_fft}, hop_length={hop}, "
            f"win_length={win}, window={_window_text(window)}, normalized={int(normalized)}, "
            f"onesided={_opt(onesided)}, return_complex={_opt(return_complex)}, align_to_window={_opt(align)}) ")


def _padded_window(window, win_length, n_fft, like):
    """The window centred in ``n_fft`` points (ones when None); None when no window is needed."""
    if win_length == n_fft:
        return window
    if window is None:
        window = full_impl((win_length,), 1, like.dtype.to_real() if like.dtype.is_complex else like.dtype,
                           like.device)
    left = (n_fft - win_length) // 2
    return aten.constant_pad_nd(window, [left, n_fft - win_length - left], 0)


def stft(self, n_fft, hop_length=None, win_length=None, window=None, normalized=False, onesided=None,
         return_complex=None, align_to_window=None):
    """``stft`` without centring: frames of ``n_fft`` points every ``hop_length``, windowed and transformed."""
    if window is not None and window.device != self.device:
        raise RuntimeError(f"stft input and window must be on the same device but got self on {self.device} and "
                           f"window on {window.device}")
    if window is None:
        _warn_once("stft-window", "A window was not provided. A rectangular window will be applied,which is known "
                   "to cause spectral leakage. Other windows such as torch.hann_window or torch.hamming_window are "
                   "recommended to reduce spectral leakage.To suppress this warning and use a rectangular window, "
                   "explicitly set `window=torch.ones(n_fft, device=<device>)`.")
    hop = n_fft >> 2 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    complex_out = self.dtype.is_complex or (window is not None and window.dtype.is_complex)
    rc = complex_out if return_complex is None else return_complex
    if not rc:
        if return_complex is None:
            raise RuntimeError("stft requires the return_complex parameter be given for real inputs, and will "
                               "further require that return_complex=True in a future PyTorch release.")
        _warn_once("stft-real", "stft with return_complex=False is deprecated. In a future pytorch release, stft "
                   "will return complex tensors for all inputs, and return_complex=False will raise an error.\n"
                   "Note: you can still call torch.view_as_real on the complex output to recover the old return "
                   "format.")
    text = _stft_repr(self, n_fft, hop, win, window, normalized, onesided, return_complex, align_to_window)
    if not (self.dtype.is_floating_point or self.dtype.is_complex):
        raise RuntimeError(text + ": expected a tensor of floating point or complex values")
    if self.ndim not in (1, 2):
        raise RuntimeError(text + ": expected a 1D or 2D tensor")
    x = aten.unsqueeze(self, 0) if self.ndim == 1 else self
    B, L = x.sizes
    if n_fft <= 0 or n_fft > L:
        raise RuntimeError(text + f": expected 0 < n_fft < {L}, but got n_fft={win}")
    if hop <= 0:
        raise RuntimeError(text + f": expected hop_length > 0, but got hop_length={hop}")
    if win <= 0 or win > n_fft:
        raise RuntimeError(text + f": expected 0 < win_length <= n_fft, but got win_length={win}")
    if window is not None and (window.ndim != 1 or window.sizes[0] != win):
        raise RuntimeError(text + f": expected a 1D window tensor of size equal to win_length={win}, but got "
                           f"window with size {list(window.sizes)}")
    full_window = _padded_window(window, win, n_fft, self)
    n_frames = 1 + (L - n_fft) // hop
    if align_to_window and win < n_fft:
        # frames start where their window starts: the signal gains the window's left margin on both sides
        left = (n_fft - win) // 2
        x = aten.constant_pad_nd(x, [left, left], 0)
        n_frames = 1 + (L - win) // hop
    s0, s1 = x.strides
    frames = aten.as_strided(x, [B, n_frames, n_fft], [s0, hop * s1, s1], x.offset)
    if full_window is not None:
        frames = aten.mul_Tensor(frames, full_window)
    one = frames.dtype.is_complex
    sided = not one if onesided is None else onesided
    mode = 1 if normalized else 0
    if one:
        if sided:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        out = aten._fft_c2c(frames, [2], mode, True)
    else:
        out = aten._fft_r2c(frames, [2], mode, sided)
    out = aten.transpose_int(out, 1, 2)
    if self.ndim == 1:
        out = aten.squeeze_dim(out, 0)
    return out if rc else aten.view_as_real(out)


def stft_center(self, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode="reflect",
                normalized=False, onesided=None, return_complex=None, align_to_window=None):
    """``stft.center``: with ``center``, pad ``n_fft // 2`` points each side (``pad_mode``) before framing."""
    if center and align_to_window is not None:
        raise RuntimeError("stft align_to_window should only be set when center = false")
    if center:
        ndim = self.ndim
        extended = [1] * (3 - ndim) + list(self.sizes)
        pad = n_fft // 2
        x = aten.pad(aten.reshape(self, extended), [pad, pad], pad_mode, None)
        self = aten.reshape(x, list(x.sizes[-ndim:]))
    return stft(self, n_fft, hop_length, win_length, window, normalized, onesided, return_complex, align_to_window)


# -- istft ------------------------------------------------------------------------------------------------------
def _istft_repr(x, n_fft, hop, win, window, center, normalized, onesided, length, return_complex) -> str:
    return (f"istft(CPU{x.dtype._short}Type{list(x.sizes)}, n_fft={n_fft}, hop_length={hop}, win_length={win}, "
            f"window={_window_text(window)}, center={int(center)}, normalized={int(normalized)}, "
            f"onesided={_opt(onesided)}, length={_opt(length)}, return_complex={int(return_complex)}) ")


def _overlap_add(frames, hop, total):
    """Sum ``(C, n_frames, n_fft)`` frames into ``(C, total)``, frame ``t`` starting at ``t * hop``."""
    C, T, N = frames.sizes
    starts = aten.mul_Scalar(arange_impl(0, T, 1, _dt.int64, frames.device), hop)
    index = aten.add_Tensor(aten.unsqueeze(starts, 1), arange_impl(0, N, 1, _dt.int64, frames.device), 1)
    zeros = full_impl((C, total), 0, frames.dtype, frames.device)
    return aten.index_add(zeros, 1, aten.reshape(index, [T * N]), aten.reshape(frames, [C, T * N]), 1)


def _istft_checks(self, n_fft, hop, win, window, onesided, text):
    if not self.dtype.is_complex:
        raise RuntimeError("istft requires a complex-valued input tensor matching the output from stft with "
                           "return_complex=True.")
    if self.numel() == 0:
        raise RuntimeError(text + ": input tensor cannot be empty.")
    real_dim = self.ndim + 1
    if real_dim not in (3, 4):
        raise RuntimeError(text + ": expected a tensor with 3 or 4 dimensions of real, or 2 or 3 dimensions of  "
                           f"complex, but got {real_dim}")
    fft_size = self.sizes[-2]
    sided = fft_size != n_fft if onesided is None else onesided
    if sided and n_fft // 2 + 1 != fft_size:
        raise RuntimeError(text + ": expected the frequency dimension (3rd to the last) of the input tensor to "
                           f"match n_fft / 2 + 1 when onesided=True, but got {fft_size}")
    if not sided and n_fft != fft_size:
        raise RuntimeError(text + ": expected the frequency dimension (3rd to the last) of the input tensor to "
                           f"match n_fft when onesided=False, but got {fft_size}")
    if not 0 < hop <= win:
        raise RuntimeError(text + ": expected 0 < hop_length <= win_length")
    if not 0 < win <= n_fft:
        raise RuntimeError(text + ": expected 0 < win_length <= n_fft")
    if window is not None and (window.ndim != 1 or window.sizes[0] != win):
        raise RuntimeError(text + ": Invalid window shape. window has to be 1D and length of `win_length`")
    return sided


def istft(self, n_fft, hop_length=None, win_length=None, window=None, center=True, normalized=False,
          onesided=None, length=None, return_complex=False):
    """The inverse of ``stft``: per-frame inverse transforms, windowed, overlap-added, divided by the window
    envelope."""
    if window is None:
        _warn_once("istft-window", "A window was not provided. A rectangular window will be applied.Please "
                   "provide the same window used by stft to make the inversion lossless.To suppress this warning "
                   "and use a rectangular window, explicitly set `window=torch.ones(n_fft, device=<device>)`.")
    hop = n_fft >> 2 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    text = _istft_repr(self, n_fft, hop, win, window, center, normalized, onesided, length, return_complex)
    if self.dtype.is_complex and self.ndim < 2:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-self.ndim - 1}, {self.ndim}], "
                         f"but got -3)")
    sided = _istft_checks(self, n_fft, hop, win, window, onesided, text)
    real = self.dtype.to_real()
    w = window if window is not None else full_impl((win,), 1, real, self.device)
    w = _padded_window(w, win, n_fft, w)
    x = aten.unsqueeze(self, 0) if self.ndim == 2 else self
    x = aten.transpose_int(x, 1, 2)  # (channel, n_frames, fft_size)
    n_frames = x.sizes[1]
    mode = 1 if normalized else 2
    if return_complex:
        if sided:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        x = aten._fft_c2c(x, [2], mode, False)
    else:
        if window is not None and window.dtype.is_complex:
            raise RuntimeError("Complex windows are incompatible with return_complex=False")
        if not sided:
            x = aten.narrow(x, 2, 0, n_fft // 2 + 1)
        x = aten._fft_c2r(x, [2], mode, n_fft)
    total = n_fft + hop * (n_frames - 1)
    y = _overlap_add(aten.mul_Tensor(x, w), hop, total)
    w2 = aten.expand(aten.reshape(aten.mul_Tensor(w, w), [1, 1, n_fft]), [1, n_frames, n_fft], False)
    envelope = _overlap_add(w2, hop, total)
    start = n_fft // 2 if center else 0
    end = start + length if length is not None else -(n_fft // 2) if center else total
    y = aten.slice_Tensor(y, 1, start, end, 1)
    envelope = aten.slice_Tensor(envelope, 1, start, end, 1)
    low = aten.lt_Scalar(aten.min(aten.abs(envelope)), 1e-11)
    if bool(low.as_numpy()):
        raise RuntimeError(text + "window overlap add min: 1\n[ CPUBoolType{} ]")
    y = aten.div_Tensor(y, envelope)
    if self.ndim == 2:
        y = aten.squeeze_dim(y, 0)
    if end > total:
        _warn_once("istft-length", "The length of signal is shorter than the length parameter. Result is being "
                   "padded with zeros in the tail. Please check your center and hop_length settings.")
        y = aten.constant_pad_nd(y, [0, end - total], 0)
    return y

