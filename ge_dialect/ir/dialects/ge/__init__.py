"""The `ge` dialect: tensor-level graph ops modelled on Ascend Graph Engine's IR.

Ops have value semantics and work on *logical* shapes (NCHW for 4-D activations, OIHW for
conv weights).  A storage format lives in the tensor type's encoding, e.g.

    tensor<1x17x8x8xf16, #ge.format<NC1HWC0>>

is a logical 1x17x8x8 tensor stored as NC1HWC0 (physical shape 1x2x8x8x16, padding lanes
zero).  No encoding means the default layout (NCHW for rank 4, ND otherwise); an explicit
default is rejected so that one layout has exactly one type.

The package, as xDSL's linalg:

- `attributes`: the format encoding `#ge.format<...>`, constant data attributes, enums;
- `types`: physical shapes and layout conversion of tensor types, dense data <-> numpy;
- `data`: where a constant's bytes come from (inline, external and memory-mapped, elided);
- `base`: the abstract op families and the verifier helpers they share;
- `ops`: the ops;
- here: the `Ge` dialect, and the names users need, as `from ge_dialect.ir.dialects import ge`.
"""

from xdsl.ir import Dialect

from ge_dialect.ir.dialects.ge.attributes import (
    Activation,
    ActivationAttr,
    ElidedAttr,
    ExternalDataAttr,
    Format,
    FormatAttr,
    Reduction,
    ReductionAttr,
)
from ge_dialect.ir.dialects.ge.base import (
    FOLD_LIMIT,
    BinaryElementwiseOp,
    CollectiveOp,
    ConvolutionOp,
    FoldingDataMovementOp,
    PoolingOp,
    UnaryElementwiseOp,
)
from ge_dialect.ir.dialects.ge.data import set_data_dir
from ge_dialect.ir.dialects.ge.ops import (
    AddOp,
    AvgPoolOp,
    BatchNormOp,
    CastOp,
    ClipOp,
    ConcatOp,
    ConstOp,
    Conv2DOp,
    FlattenOp,
    FusedConv2DOp,
    GeConstantMaterialization,
    GlobalAvgPoolOp,
    HcomAllGatherOp,
    HcomAllReduceOp,
    IdentityOp,
    LeakyReluOp,
    MatMulOp,
    MaxPoolOp,
    MulOp,
    Relu6Op,
    ReluOp,
    ReshapeOp,
    SigmoidOp,
    SiluOp,
    SoftmaxOp,
    SubOp,
    TransDataOp,
    TransposeOp,
)
from ge_dialect.ir.dialects.ge.types import (
    dense_from_numpy,
    dense_to_numpy,
    layout_str,
    physical_shape,
    tensor_c0,
    tensor_format,
    tensor_groups,
    to_logical,
    to_physical,
    verify_tensor_type,
    with_format,
)

Ge = Dialect(
    "ge",
    [
        ConstOp,
        Conv2DOp,
        FusedConv2DOp,
        BatchNormOp,
        ReluOp,
        Relu6Op,
        LeakyReluOp,
        SigmoidOp,
        ClipOp,
        AddOp,
        SubOp,
        MulOp,
        TransDataOp,
        MatMulOp,
        SiluOp,
        MaxPoolOp,
        AvgPoolOp,
        GlobalAvgPoolOp,
        ConcatOp,
        ReshapeOp,
        FlattenOp,
        TransposeOp,
        SoftmaxOp,
        IdentityOp,
        CastOp,
        HcomAllReduceOp,
        HcomAllGatherOp,
    ],
    [FormatAttr, ExternalDataAttr, ElidedAttr, ActivationAttr, ReductionAttr],
    [GeConstantMaterialization()],
)
