"""An ordinary PyTorch script that uses torch.compile: a compiled CNN trained with AdamW, then evaluated, and a
compiled helper function (decorator form).  It imports only ``torch``; the tests run it unchanged with real
PyTorch and through ``python -m glasstorch.compat`` and compare the numbers it prints.  Weights and data come
from closed formulas (glasstorch's random streams are its own, not PyTorch's mt19937)."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, padding=1, bias=False)  # BatchNorm follows: a bias would get a zero gradient
        self.bn = nn.BatchNorm2d(4)
        self.fc1 = nn.Linear(4 * 4 * 4, 32)
        self.fc2 = nn.Linear(32, 3)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn(self.conv(x))), 2)
        x = F.gelu(self.fc1(x.flatten(1)))
        return self.fc2(x)


@torch.compile
def scaled_tanh(x, scale):
    return torch.tanh(x) * scale + x.pow(2).mean()


def deterministic_(module):
    with torch.no_grad():
        for i, p in enumerate(module.parameters()):
            n = p.numel()
            p.copy_((torch.sin(torch.arange(n, dtype=torch.float32) * 0.7 + i) / (n ** 0.5)).reshape(p.shape))


model = Net()
deterministic_(model)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
compiled = torch.compile(model)
x = torch.cos(torch.arange(16 * 64, dtype=torch.float32) * 0.37).reshape(16, 1, 8, 8) * 2
y = torch.arange(16) % 3
for step in range(5):
    optimizer.zero_grad()
    loss = F.cross_entropy(compiled(x), y)
    loss.backward()
    grad_norm = torch.sqrt(sum((p.grad ** 2).sum() for p in model.parameters()))
    optimizer.step()
    print(f"step {step}: loss {loss.item():.7f} grad_norm {grad_norm.item():.7f}")
print(f"running_mean {model.bn.running_mean.sum().item():.7f} running_var {model.bn.running_var.sum().item():.7f}")
model.eval()
with torch.no_grad():
    out = compiled(x)
print(f"eval: logits_sum {out.sum().item():.7f} accuracy {(out.argmax(1) == y).float().mean().item():.4f}")
print(f"helper: {scaled_tanh(torch.linspace(-2, 2, 9), 3.0).sum().item():.7f}")
