/*
 * Room viewer/render/: writing results (text, JSON, HTML, DOT, Chrome); reads no SQLite.
 *
 * site_text.c - how the report names a call site (text and JSON share it):
 * a Python frame as "file:line (in `function`)" with the file's last path
 * component, a native one as "`symbol` in module+0xoffset" with a C++
 * symbol in its short demangled form ("at::native::_local_scalar_dense_cuda"
 * for _ZN2at6native24_local_scalar_dense_cudaERKNS_6TensorE). The caller
 * escapes the result (trace strings are untrusted).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "names.h"
#include "report.h"

static const char *base_name(const char *p)
{
	const char *s = p ? strrchr(p, '/') : NULL;
	return s && s[1] ? s + 1 : p;
}

/* PyTorch releases the GIL around its blocking calls, so their sites are
 * native frames of ATen; the Python call a user wrote for the common ones */
static const char *torch_hint(const char *f)
{
	static const struct {
		const char *fn, *hint;
	} hints[] = {
	    {"at::native::_local_scalar_dense_cuda", "tensor.item() / float(tensor)"},
	    {"at::native::copy_", "tensor.to() / .cpu() / .copy_()"},
	    {"at::native::nonzero_cuda", "nonzero() / boolean-mask indexing"},
	    {"at::native::_unique", "unique()"},
	    {"c10::cuda::device_synchronize", "torch.cuda.synchronize()"},
	};
	size_t i;

	for (i = 0; i < sizeof(hints) / sizeof(hints[0]); i++)
		if (!strcmp(f, hints[i].fn))
			return hints[i].hint;
	return NULL;
}

void report_site_text(char *buf, size_t n, const struct gs_input *in, uint32_t site)
{
	const struct gs_site *s;
	const char *file, *func;

	if (!n)
		return;
	buf[0] = '\0';
	if (site == GS_NONE || site >= in->n_sites) {
		snprintf(buf, n, "?");
		return;
	}
	char shortname[128];

	s = &in->sites[site];
	file = base_name(gs_str(&in->strings, s->file_id, "?"));
	func = gs_str(&in->strings, s->func_id, NULL);
	if (func && s->line < 0 && !strncmp(func, "_Z", 2)) {
		gs_short_name(func, shortname, sizeof(shortname), 80);
		func = shortname;
	}
	if (s->line >= 0)
		snprintf(buf, n, "%.120s:%d%s%.80s%s", file, s->line, func ? " (in `" : "",
			 func ? func : "", func ? "`)" : "");
	else if (func && torch_hint(func))
		snprintf(buf, n, "`%.120s` (PyTorch: %s) in %.80s+0x%" PRIx64, func,
			 torch_hint(func), file, s->offset);
	else if (func)
		snprintf(buf, n, "`%.120s` in %.80s+0x%" PRIx64, func, file, s->offset);
	else
		snprintf(buf, n, "%.80s+0x%" PRIx64, file, s->offset);
}

const struct gs_site_stat *report_top_site(const struct gs_site_stat *stats, size_t n,
					   uint32_t api_name_id)
{
	size_t i;

	/* stats are sorted by idle, then calls: the first match is the top */
	for (i = 0; i < n; i++)
		if (stats[i].api_name_id == api_name_id)
			return &stats[i];
	return NULL;
}
