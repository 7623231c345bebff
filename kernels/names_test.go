package kernels

import (
	"regexp"
	"testing"
)

var entryRE = regexp.MustCompile(`\.entry\s+(\w+)\(`)

// Every kernel name the launchers can ask for is an entry of its embedded
// PTX module (checked without a GPU).
func TestKernelNamesExist(t *testing.T) {
	entries := map[string]map[string]bool{}
	for _, m := range PTXModules() {
		img, _ := PTX(m)
		entries[m] = map[string]bool{}
		for _, e := range entryRE.FindAllSubmatch(img, -1) {
			entries[m][string(e[1])] = true
		}
	}
	want := map[string][]string{
		"elementwise": {"gk_add_f32", "gk_sub_f32", "gk_mul_f32", "gk_scale_f32", "gk_axpy_f32", "gk_fill_f32",
			"gk_add_bias_f32", "gk_relu_fwd_f32", "gk_relu_bwd_f32", "gk_leaky_relu_fwd_f32", "gk_leaky_relu_bwd_f32",
			"gk_elu_fwd_f32", "gk_elu_bwd_f32"},
		"dropout": {"gk_dropout_fwd_f32", "gk_dropout_bwd_f32"},
		"reduce":  {"gk_sum_partial_f32", "gk_sum_final_f32", "gk_sum_dim0_f32", "gk_sum_dim1_f32"},
		"softmax": {"gk_log_softmax_fwd_f32", "gk_log_softmax_bwd_f32", "gk_softmax_fwd_f32", "gk_softmax_bwd_f32",
			"gk_cross_entropy_fwd_f32", "gk_cross_entropy_bwd_f32"},
		"cast":  {"gk_cast_f32_f16", "gk_cast_f16_f32", "gk_cast_f32_bf16", "gk_cast_bf16_f32"},
		"adam":  {"gk_adam_f32", "gk_unscale_f32"},
		"dense": {"gk_nll_fwd_f32", "gk_nll_bwd_f32", "gk_argmax_rows_f32"},
		"gat":   {"gk_edge_softmax_fwd_f32", "gk_edge_softmax_bwd_f32", "gk_edge_sum_dst_f32"},
	}
	for _, it := range []DType{DTypeInt32, DTypeInt64} {
		is := it.indexSuffix("test")
		for _, u := range []string{"v16", "v4", "v2"} {
			want["gather"] = append(want["gather"], "gk_gather_rows_"+u+"_"+is)
		}
		want["gather"] = append(want["gather"], "gk_scatter_add_rows_f32_"+is)
		want["gat"] = append(want["gat"], "gk_sddmm_u_add_v_f32_"+is, "gk_sddmm_u_dot_v_f32_"+is, "gk_edge_sum_src_f32_"+is)
		for _, red := range []Reduce{ReduceSum, ReduceMean, ReduceMax} {
			for _, dt := range []DType{DTypeFloat32, DTypeFloat16, DTypeBFloat16} {
				for _, vs := range []string{"v1", "v16"} {
					sfx := red.String() + "_" + dt.suffix("test") + "_" + is + "_" + vs
					want["spmm"] = append(want["spmm"], "gk_spmm_"+sfx, "gk_spmm_long_"+sfx)
				}
			}
			want["spmm"] = append(want["spmm"], "gk_spmm_bwd_"+red.String()+"_f32_"+is)
		}
	}
	for _, dt := range []DType{DTypeFloat32, DTypeFloat16, DTypeBFloat16} {
		for _, k := range []string{"binary", "bcast_binary", "sum_to", "unary", "unary_bwd", "fill_from"} {
			want["dense"] = append(want["dense"], "gk_"+k+"_"+dt.suffix("test"))
		}
	}
	for _, b := range []string{"b1", "b2", "b4", "b8"} {
		want["dense"] = append(want["dense"], "gk_copy2d_"+b, "gk_transpose_"+b)
	}
	n := 0
	for mod, names := range want {
		for _, name := range names {
			n++
			if !entries[mod][name] {
				t.Errorf("module %s has no kernel %s", mod, name)
			}
		}
	}
	t.Logf("%d kernel entry points found", n)
}
