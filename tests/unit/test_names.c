/*
 * test_names.c - unit tests of viewer/trace/names.c: demangling of CUPTI's kernel
 * names (libstdc++'s __cxa_demangle behind gs_demangle) and the short labels
 * of gs_short_name. The expected strings are worked out by hand from the
 * Itanium C++ ABI mangling rules (noted next to each); the mangled names
 * are the ones in real H200 traces where marked.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "names.h"

static void check_demangle(const char *in, const char *want)
{
	char *got = gs_demangle(in);

	if (!want) {
		assert_null(got);
		return;
	}
	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
}

static void test_demangle_cuda_kernels(void **state)
{
	(void)state;
	/* K = const, P = pointer, j = unsigned int; S_ = "unsigned int const",
	 * S0_ = "unsigned int const*" (the toy decoder's kernel) */
	check_demangle(
	    "_Z13gs_dec_matvecPKjS0_S0_Pj",
	    "gs_dec_matvec(unsigned int const*, unsigned int const*, unsigned int const*, "
	    "unsigned int*)");
	/* f float, i int (graph_conversion demo's kernel, H200 trace) */
	check_demangle("_Z15gs_short_kernelPfPKfiff",
		       "gs_short_kernel(float*, float const*, int, float, float)");
	/* a template function: I f Li4E E, return type v, T_ = the first
	 * template argument (float) */
	check_demangle("_Z6kernelIfLi4EEvPT_i", "void kernel<float, 4>(float*, int)");
	/* nested name in std (St), a member function with no parameters */
	check_demangle("_ZNSt6vectorIiE4sizeEv", "std::vector<int>::size()");
	check_demangle("_ZN12_GLOBAL__N_16kernelEv", "(anonymous namespace)::kernel()");
	/* cuBLAS's kernel in the torch.cuda.CUDAGraph trace: T_ is the class
	 * template argument, N T_ 6Params E its nested type */
	check_demangle("_ZN7cutlass7Kernel2I41cutlass_80_simt_sgemm_64x64_8x5_tn_align1EEvNT_"
		       "6ParamsE",
		       "void cutlass::Kernel2<cutlass_80_simt_sgemm_64x64_8x5_tn_align1>("
		       "cutlass_80_simt_sgemm_64x64_8x5_tn_align1::Params)");
}

static void test_demangle_leaves_other_names_alone(void **state)
{
	(void)state;
	check_demangle(NULL, NULL);
	check_demangle("", NULL);
	check_demangle("gemm_kernel", NULL); /* extern "C" kernels are not mangled */
	check_demangle("i", NULL);	     /* __cxa_demangle alone would say "int" */
	check_demangle("_Zxyz", NULL);	     /* not a valid encoding */
	/* cut short (no closing E): the demangler refuses it */
	check_demangle("_ZN2at6native18elementwise_kernelILi128ELi4E", NULL);
}

static void test_demangle_refuses_huge_names(void **state)
{
	/* "_Z70000aaa...av" is a valid encoding of aaa...a() with a 70000
	 * character name; over names.c's 65536 limit it is not demangled */
	size_t n = 70000;
	char *s = malloc(n + 16);
	char out[256];

	(void)state;
	assert_non_null(s);
	strcpy(s, "_Z70000");
	memset(s + 7, 'a', n);
	strcpy(s + 7 + n, "v");
	assert_null(gs_demangle(s));
	/* the label still reads the name from the encoding: 9 a's and "…" */
	gs_short_name(s, out, sizeof(out), 10);
	assert_string_equal(out, "aaaaaaaaa…");
	free(s);
	check_demangle("_Z5aaaaav", "aaaaa()"); /* the same, short, is demangled */
}

static void check_short(const char *in, size_t max, const char *want)
{
	char out[256];

	gs_short_name(in, out, sizeof(out), max);
	assert_string_equal(out, want);
}

static void test_short_names(void **state)
{
	(void)state;
	check_short("void foo<float, 4>(float*, int)", 40, "foo<…>");
	check_short("_Z3fooPfi", 40, "foo");
	check_short("_Z13gs_dec_matvecPKjS0_S0_Pj", 40, "gs_dec_matvec");
	check_short("_Z6kernelIfLi4EEvPT_i", 40, "kernel<…>");
	/* demangled first: the member function's name survives */
	check_short("_ZNSt6vectorIiE4sizeEv", 40, "std::vector<…>::size");
	check_short("_ZN12_GLOBAL__N_16kernelEv", 40, "(anonymous namespace)::kernel");
	/* the torch.cuda.CUDAGraph trace's kernels (H200) */
	check_short("_ZN7cutlass7Kernel2I41cutlass_80_simt_sgemm_64x64_8x5_tn_align1EEvNT_6ParamsE",
		    40, "cutlass::Kernel2<…>");
	check_short(
	    "_ZN2at6native29vectorized_elementwise_kernelILi4EZZZNS0_18GeluCUDAKernelImplE"
	    "RNS_18TensorIteratorBaseENS0_8GeluTypeEENKUlvE0_clEvENKUlvE0_clEvEUlfE_St5arrayI"
	    "PcLm2EEEEviT0_T1_",
	    0, "at::native::vectorized_elementwise_kernel<…>");
	/* over 40 characters: "at::" dropped, then it fits (8 + 29 + 3 = 40) */
	check_short(
	    "_ZN2at6native29vectorized_elementwise_kernelILi4EZZZNS0_18GeluCUDAKernelImplE"
	    "RNS_18TensorIteratorBaseENS0_8GeluTypeEENKUlvE0_clEvENKUlvE0_clEvEUlfE_St5arrayI"
	    "PcLm2EEEEviT0_T1_",
	    40, "native::vectorized_elementwise_kernel<…>");
	/* qualifiers in brackets are not split: "ns::A<…>::" goes as a whole
	 * only after "ns::" (the two leave "run<…>") */
	check_short("void ns::A<int>::run<(int)3>(ns::A<int>*)", 8, "run<…>");
	check_short("(anonymous namespace)::kernel_with_long_name", 10, "kernel_wi…");
	/* refused by the demangler (cut short): read from the encoding */
	check_short("_ZN2at6native18elementwise_kernelILi128ELi4E", 40,
		    "at::native::elementwise_kernel<…>");
	check_short("void (anonymous namespace)::k(int)", 40, "(anonymous namespace)::k");
	check_short("void ns::A<int>::run<(int)3>(ns::A<int>*)", 40, "ns::A<…>::run<…>");
	check_short("<lambda>", 40, "<lambda>");
	check_short("void ns::<unnamed>::k<int>(int)", 40, "ns::<unnamed>::k<…>");
	check_short("gemm_kernel", 40, "gemm_kernel");
	check_short("foo<int(", 40, "foo<int("); /* unbalanced: shown as recorded */
	check_short("_Zxyz", 40, "_Zxyz");	 /* not understood: as recorded */
	check_short("abcdefghij", 5, "abcd…");	 /* cut to 5 characters with the ellipsis */
	check_short("abcde", 5, "abcde");
	check_short("\xc2\xb5\xc2\xb5\xc2\xb5", 2, "\xc2\xb5…"); /* never half a character */
	check_short(NULL, 40, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_demangle_cuda_kernels),
	    cmocka_unit_test(test_demangle_leaves_other_names_alone),
	    cmocka_unit_test(test_demangle_refuses_huge_names),
	    cmocka_unit_test(test_short_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
