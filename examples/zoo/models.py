"""The zoo's model definitions: plain `torch.nn` modules with seeded weights.

Each entry of `MODELS` builds one network in eval mode with seeded random weights and
non-trivial batch-norm statistics (scale, shift, running mean and variance drawn from
seeded distributions, so that BatchNormalization is not an identity), and names its input
shape.  `make_zoo.py` exports them to ONNX; the tests and benches reach them through
`make_zoo.zoo_model(name)`.

- `resnet18`, `resnet50`: torchvision's ResNet-18 (basic blocks) and ResNet-50 v1.5
  (bottlenecks, the stride on the 3x3), 1x3x224x224, 1000 classes.
- `mobilenet_v2`: MobileNetV2 (inverted residuals: 1x1 expand, 3x3 depthwise, 1x1 linear
  project; ReLU6; residual adds where shapes allow), 1x3x224x224.
- `inception`: a small GoogLeNet-style network (1x3x64x64): a stem, two inception modules
  of four branches (1x1; 1x1 -> 3x3; 1x1 -> 5x5; 3x3/1 max pool -> 1x1) with widths that
  are not multiples of 16 (unaligned channel concats), 3x3/2 ceil-mode max pools.
- `encoder`: a transformer encoder block (1x48x64: 48 tokens of width 64), LayerNorm-free:
  4 parallel heads, each its own Q, K, V projections, `softmax(Q K^T / sqrt(d)) V`; the
  heads concatenated, an output projection, a residual add; a ReLU feed-forward
  (64 -> 256 -> 64) and a second residual add.

Only torch is imported here: keep it that way (the definition's source is hashed to decide
whether a cached export is stale).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch import nn

# ---- seeded weights -----------------------------------------------------------------------


def init_weights(model: nn.Module, seed: int) -> nn.Module:
    """Seeded weights for every conv, linear and batch-norm layer; the model in eval mode.

    Convs ~ N(0, 2/fan_in) (He), linears ~ N(0, 1/fan_in), biases ~ U(-0.1, 0.1);
    batch norm: scale ~ U(0.5, 1.5), shift ~ U(-0.2, 0.2), running mean ~ U(-0.2, 0.2),
    running variance ~ U(0.5, 2.0).
    """
    g = torch.Generator().manual_seed(seed)

    def uniform(shape: torch.Size, lo: float, hi: float) -> torch.Tensor:
        return torch.rand(shape, generator=g) * (hi - lo) + lo

    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.Conv2d | nn.Linear):
                fan_in = m.weight[0].numel()
                gain = 2.0 if isinstance(m, nn.Conv2d) else 1.0
                m.weight.copy_(torch.randn(m.weight.shape, generator=g) * math.sqrt(gain / fan_in))
                if m.bias is not None:
                    m.bias.copy_(uniform(m.bias.shape, -0.1, 0.1))
            elif isinstance(m, nn.BatchNorm2d):
                m.weight.copy_(uniform(m.weight.shape, 0.5, 1.5))
                m.bias.copy_(uniform(m.bias.shape, -0.2, 0.2))
                assert m.running_mean is not None and m.running_var is not None
                m.running_mean.copy_(uniform(m.running_mean.shape, -0.2, 0.2))
                m.running_var.copy_(uniform(m.running_var.shape, 0.5, 2.0))
    return model.eval()


def conv_bn(cin: int, cout: int, k: int, stride: int = 1, groups: int = 1, eps: float = 1e-5):
    """A bias-free conv ("same" padding for odd k) and its batch norm."""
    return [
        nn.Conv2d(cin, cout, k, stride, k // 2, groups=groups, bias=False),
        nn.BatchNorm2d(cout, eps=eps),
    ]


# ---- ResNet ---------------------------------------------------------------------------------


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, cin: int, width: int, stride: int):
        super().__init__()
        cout = width * self.expansion
        self.body = nn.Sequential(
            *conv_bn(cin, width, 3, stride), nn.ReLU(), *conv_bn(width, cout, 3)
        )
        self.shortcut = (
            nn.Sequential(*conv_bn(cin, cout, 1, stride))
            if stride != 1 or cin != cout
            else nn.Identity()
        )
        self.relu = nn.ReLU()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.relu(self.body(x) + self.shortcut(x))


class Bottleneck(BasicBlock):
    """ResNet v1.5's bottleneck: 1x1 reduce, 3x3 (carrying the stride), 1x1 expand (x4)."""

    expansion = 4

    def __init__(self, cin: int, width: int, stride: int):
        super().__init__(cin, width, stride)
        self.body = nn.Sequential(
            *conv_bn(cin, width, 1),
            nn.ReLU(),
            *conv_bn(width, width, 3, stride),
            nn.ReLU(),
            *conv_bn(width, width * 4, 1),
        )


class ResNet(nn.Module):
    def __init__(self, block: type[BasicBlock], depths: list[int], classes: int = 1000):
        super().__init__()
        layers: list[nn.Module] = [*conv_bn(3, 64, 7, 2), nn.ReLU(), nn.MaxPool2d(3, 2, 1)]
        cin = 64
        for stage, depth in enumerate(depths):
            width = 64 << stage
            for i in range(depth):
                layers.append(block(cin, width, 2 if stage > 0 and i == 0 else 1))
                cin = width * block.expansion
        self.features = nn.Sequential(*layers)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(cin, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(torch.flatten(self.pool(self.features(x)), 1))


# ---- MobileNetV2 ----------------------------------------------------------------------------


class InvertedResidual(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int, expand: int):
        super().__init__()
        hidden = cin * expand
        layers: list[nn.Module] = []
        if expand != 1:
            layers += [*conv_bn(cin, hidden, 1), nn.ReLU6()]
        layers += [
            *conv_bn(hidden, hidden, 3, stride, groups=hidden),  # depthwise
            nn.ReLU6(),
            *conv_bn(hidden, cout, 1),  # linear bottleneck: no activation
        ]
        self.body = nn.Sequential(*layers)
        self.residual = stride == 1 and cin == cout

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.body(x)
        return x + y if self.residual else y


class MobileNetV2(nn.Module):
    # (expansion, channels, repeats, first stride), as in the paper
    SETTINGS = [
        (1, 16, 1, 1),
        (6, 24, 2, 2),
        (6, 32, 3, 2),
        (6, 64, 4, 2),
        (6, 96, 3, 1),
        (6, 160, 3, 2),
        (6, 320, 1, 1),
    ]

    def __init__(self, classes: int = 1000):
        super().__init__()
        layers: list[nn.Module] = [*conv_bn(3, 32, 3, 2), nn.ReLU6()]
        cin = 32
        for t, c, n, s in self.SETTINGS:
            for i in range(n):
                layers.append(InvertedResidual(cin, c, s if i == 0 else 1, t))
                cin = c
        layers += [*conv_bn(cin, 1280, 1), nn.ReLU6()]
        self.features = nn.Sequential(*layers)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(1280, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(torch.flatten(self.pool(self.features(x)), 1))


# ---- Inception (GoogLeNet-style) ------------------------------------------------------------


def basic_conv(cin: int, cout: int, k: int, stride: int = 1) -> nn.Sequential:
    """GoogLeNet's BasicConv2d: a bias-free conv, batch norm (eps 1e-3), ReLU."""
    return nn.Sequential(*conv_bn(cin, cout, k, stride, eps=1e-3), nn.ReLU())


class InceptionModule(nn.Module):
    def __init__(self, cin: int, c1: int, c3r: int, c3: int, c5r: int, c5: int, pool: int):
        super().__init__()
        self.b1 = basic_conv(cin, c1, 1)
        self.b3 = nn.Sequential(basic_conv(cin, c3r, 1), basic_conv(c3r, c3, 3))
        self.b5 = nn.Sequential(basic_conv(cin, c5r, 1), basic_conv(c5r, c5, 5))
        self.bp = nn.Sequential(nn.MaxPool2d(3, 1, 1, ceil_mode=True), basic_conv(cin, pool, 1))
        self.channels = c1 + c3 + c5 + pool

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.cat([self.b1(x), self.b3(x), self.b5(x), self.bp(x)], 1)


class Inception(nn.Module):
    def __init__(self, classes: int = 10):
        super().__init__()
        a = InceptionModule(72, 24, 24, 40, 8, 12, 12)  # 88 channels
        b = InceptionModule(a.channels, 40, 32, 56, 12, 20, 20)  # 136 channels
        self.features = nn.Sequential(
            basic_conv(3, 24, 7, 2),  # 64 -> 32
            nn.MaxPool2d(3, 2, ceil_mode=True),  # 32 -> 16 (15 without ceil mode)
            basic_conv(24, 24, 1),
            basic_conv(24, 72, 3),
            a,
            nn.MaxPool2d(3, 2, ceil_mode=True),  # 16 -> 8 (7 without ceil mode)
            b,
        )
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(b.channels, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(torch.flatten(self.pool(self.features(x)), 1))


# ---- transformer encoder block --------------------------------------------------------------


class Head(nn.Module):
    def __init__(self, width: int, dim: int):
        super().__init__()
        self.q, self.k, self.v = (nn.Linear(width, dim) for _ in range(3))
        self.scale = math.sqrt(dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        scores = self.q(x) @ self.k(x).transpose(1, 2) / self.scale
        return torch.softmax(scores, dim=-1) @ self.v(x)


class EncoderBlock(nn.Module):
    """LayerNorm-free: attention and feed-forward, each with a residual add."""

    def __init__(self, width: int = 64, heads: int = 4, hidden: int = 256):
        super().__init__()
        self.heads = nn.ModuleList(Head(width, width // heads) for _ in range(heads))
        self.out = nn.Linear(width, width)
        self.ffn = nn.Sequential(nn.Linear(width, hidden), nn.ReLU(), nn.Linear(hidden, width))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.out(torch.cat([h(x) for h in self.heads], dim=-1))
        return x + self.ffn(x)


# ---- the zoo --------------------------------------------------------------------------------


@dataclass(frozen=True)
class ZooEntry:
    """A zoo model: how to build it, its input's shape, its seed."""

    build: Callable[[], nn.Module]
    input_shape: tuple[int, ...]
    seed: int


MODELS: dict[str, ZooEntry] = {
    "resnet18": ZooEntry(lambda: ResNet(BasicBlock, [2, 2, 2, 2]), (1, 3, 224, 224), seed=18),
    "resnet50": ZooEntry(lambda: ResNet(Bottleneck, [3, 4, 6, 3]), (1, 3, 224, 224), seed=50),
    "mobilenet_v2": ZooEntry(MobileNetV2, (1, 3, 224, 224), seed=2),
    "inception": ZooEntry(Inception, (1, 3, 64, 64), seed=1),
    "encoder": ZooEntry(EncoderBlock, (1, 48, 64), seed=7),
}


def build(name: str) -> nn.Module:
    """The zoo model `name` in eval mode with its seeded weights."""
    entry = MODELS[name]
    torch.manual_seed(entry.seed)  # construction-time init; every weight is then redrawn
    return init_weights(entry.build(), entry.seed)
