# gpu-env.sh - sourced (not run) by the scripts that run on the GPU machine,
# once they are in the repository root:
#
#   . tools/gpu-env.sh
#   gs_clean_env   # what the caller's environment must not carry in
#   gs_need_gpu    # one line and exit 77 where there is no GPU
#
# gs_clean_env unsets the CUDA and NVTX injection paths and every GAPSCOPE_*
# variable: a collector setting left in the caller's environment would change
# what is measured, and an injection would trace the untraced runs. The
# scripts set what each run needs afterwards.

gs_clean_env() {
	unset CUDA_INJECTION64_PATH NVTX_INJECTION64_PATH "${!GAPSCOPE_@}"
}

gs_need_gpu() {
	if ! nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
		echo "no NVIDIA GPU here (nvidia-smi -L): skipped"
		exit 77
	fi
}
