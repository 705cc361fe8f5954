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
- `comparison`: comparisons (i1 results), logic on i1 and `ge.where`;
- `reduction`: the reduction and normalisation ops;
- `indexing`: gather, slice and expand;
- `transformer`: flash attention and rotary position embedding;
- `moe`: topk, scatter_add, swi_glu, moe_gating_top_k, grouped_matmul;
- `cache`: `ge.scatter_update`, the KV-cache update;
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
from ge_dialect.ir.dialects.ge.cache import ScatterUpdateOp
from ge_dialect.ir.dialects.ge.collectives import (
    HcomAllToAllOp,
    HcomBroadcastOp,
    HcomReceiveOp,
    HcomReduceScatterOp,
    HcomSendOp,
    PointToPointOp,
)
from ge_dialect.ir.dialects.ge.comparison import (
    COMPARISON_OPS,
    ComparisonOp,
    EqualOp,
    GreaterEqualOp,
    GreaterOp,
    LessEqualOp,
    LessOp,
    LogicalAndOp,
    LogicalBinaryOp,
    LogicalNotOp,
    LogicalOrOp,
    NotEqualOp,
    WhereOp,
)
from ge_dialect.ir.dialects.ge.data import set_data_dir
from ge_dialect.ir.dialects.ge.indexing import ExpandOp, GatherOp, SliceOp
from ge_dialect.ir.dialects.ge.moe import (
    GATING_NORMS,
    GroupedMatmulOp,
    MoeGatingTopKOp,
    ScatterAddOp,
    SwiGluOp,
    TopKOp,
)
from ge_dialect.ir.dialects.ge.ops import (
    GELU_APPROXIMATIONS,
    AddOp,
    AvgPoolOp,
    BatchNormOp,
    CastOp,
    ClipOp,
    ConcatOp,
    ConstOp,
    Conv2DOp,
    CosOp,
    DivOp,
    ErfOp,
    ExpOp,
    FlattenOp,
    FusedConv2DOp,
    GeConstantMaterialization,
    GeluOp,
    GlobalAvgPoolOp,
    HcomAllGatherOp,
    HcomAllReduceOp,
    IdentityOp,
    LeakyReluOp,
    LogOp,
    MatMulOp,
    MaximumOp,
    MaxPoolOp,
    MinimumOp,
    MulOp,
    NegOp,
    PowOp,
    ReciprocalOp,
    Relu6Op,
    ReluOp,
    ReshapeOp,
    RsqrtOp,
    SigmoidOp,
    SiluOp,
    SinOp,
    SoftmaxOp,
    SqrtOp,
    SubOp,
    TanhOp,
    TransDataOp,
    TransposeOp,
)
from ge_dialect.ir.dialects.ge.reduction import (
    LayerNormOp,
    ReduceMaxOp,
    ReduceMeanOp,
    ReduceMinOp,
    ReduceOp,
    ReduceSumOp,
    RmsNormOp,
    reduced_shape,
)
from ge_dialect.ir.dialects.ge.transformer import FlashAttentionOp, RotaryMulOp
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
        HcomReduceScatterOp,
        HcomAllToAllOp,
        HcomBroadcastOp,
        HcomSendOp,
        HcomReceiveOp,
        ExpOp,
        LogOp,
        TanhOp,
        ErfOp,
        SqrtOp,
        RsqrtOp,
        NegOp,
        ReciprocalOp,
        GeluOp,
        DivOp,
        MaximumOp,
        MinimumOp,
        PowOp,
        SinOp,
        CosOp,
        EqualOp,
        NotEqualOp,
        LessOp,
        LessEqualOp,
        GreaterOp,
        GreaterEqualOp,
        LogicalNotOp,
        LogicalAndOp,
        LogicalOrOp,
        WhereOp,
        ReduceSumOp,
        ReduceMeanOp,
        ReduceMaxOp,
        ReduceMinOp,
        LayerNormOp,
        RmsNormOp,
        GatherOp,
        SliceOp,
        ExpandOp,
        ScatterUpdateOp,
        TopKOp,
        ScatterAddOp,
        SwiGluOp,
        MoeGatingTopKOp,
        GroupedMatmulOp,
        FlashAttentionOp,
        RotaryMulOp,
    ],
    [FormatAttr, ExternalDataAttr, ElidedAttr, ActivationAttr, ReductionAttr],
    [GeConstantMaterialization()],
)
