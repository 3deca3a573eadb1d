"""``python -m glasstorch.demo`` — a guided look at Tensor over Storage (what ``make run`` shows for now).

It walks through the contract every later layer stands on: a tensor is a description (sizes, strides,
offset, dtype) of a flat byte buffer; views change the description, never the memory; a shared
version counter records writes; ``reshape`` copies only when no view can express the result.
"""

from __future__ import annotations

import glasstorch as torch


def _geometry(name, t):
    s = t.untyped_storage()
    print(f"  {name:<22} shape={tuple(t.shape)!s:<10} stride={t.stride()!s:<9} offset={t.storage_offset():<2} "
          f"contiguous={t.is_contiguous()!s:<5} storage@{s.data_ptr():#x} ({s.nbytes()} bytes) "
          f"_version={t._version}")


def main() -> None:
    print(f"glasstorch {torch.__version__}: Tensor over Storage\n")
    x = torch.arange(12, dtype=torch.float32).view(3, 4)
    print("x = torch.arange(12.).view(3, 4)")
    print(x, "\n")

    views = {
        "x": x,
        "x.t()": x.t(),
        "x[1]": x[1],
        "x[:, 1::2]": x[:, 1::2],
        "x.unsqueeze(0)": x.unsqueeze(0),
        "x.view(2, 6)": x.view(2, 6),
        "x.diagonal()": x.diagonal(),
        "x[0].expand(2, 4)": x[0].expand(2, 4),
    }
    print("Views are new (sizes, strides, offset) over the same storage - no bytes move:")
    for name, v in views.items():
        _geometry(name, v)

    print("\nA write through one view is seen by all of them, and bumps the shared version counter:")
    col = x[:, 1::2]
    col[0, 0] = 100.0
    print("  x[:, 1::2][0, 0] = 100  ->  x[0, 1] =", x[0, 1].item(), f"; x._version = {x._version}")
    print("  the view's _base is the root tensor:", col._base is x._base)

    print("\nview() needs stride-compatible memory; reshape() copies when it must:")
    xt = x.t()
    try:
        xt.view(12)
    except RuntimeError as e:
        print("  x.t().view(12) ->", type(e).__name__ + ":", e)
    r = xt.reshape(12)
    print("  x.t().reshape(12) shares storage with x?",
          r.untyped_storage().data_ptr() == x.untyped_storage().data_ptr())

    print("\ncontiguous() returns self when already contiguous, a copy otherwise:")
    print("  x.contiguous() is x:", x.contiguous() is x, "| x.t().contiguous().stride():", xt.contiguous().stride())

    print("\nPyTorch's type promotion (three priority groups: tensors > 0-dim tensors > Python scalars):")
    for a, b in [(torch.tensor([1, 2]), 2.5),
                 (torch.tensor([1], dtype=torch.uint8), torch.tensor([1], dtype=torch.int8)),
                 (torch.tensor([1.0], dtype=torch.float16), torch.tensor([1.0], dtype=torch.bfloat16)),
                 (torch.tensor([1, 2]), torch.tensor(1.0, dtype=torch.float64))]:
        print(f"  result_type({_desc(a)}, {_desc(b)}) = {torch.result_type(a, b)}")

    m = torch.empty(1024, 1024, device="meta")
    print(f"\nA meta tensor has geometry but no data: {m.shape}, {m.dtype}, storage of {m.untyped_storage().nbytes()} "
          f"bytes at {m.untyped_storage().data_ptr()}")
    try:
        m.tolist()
    except NotImplementedError as e:
        print("  m.tolist() ->", type(e).__name__ + ":", e)


def _desc(v):
    if isinstance(v, torch.Tensor):
        kind = "0-dim" if v.dim() == 0 else f"{v.dim()}-d"
        return f"{kind} {v.dtype}"
    return repr(v)


if __name__ == "__main__":
    main()
