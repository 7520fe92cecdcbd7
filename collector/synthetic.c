/*
 * synthetic.c - a minimal activity-buffer format for records built by hand.
 *
 * CUPTI's own buffer layout is private to CUPTI (cuptiActivityGetNextRecord
 * is the only reader). Tests and the writer benchmark build real CUPTI
 * record structs, but need some container to pass a "buffer" through the
 * same decode path: this is it. Each record is preceded by its size (8
 * bytes) and padded to 8 bytes, so the records stay aligned like CUPTI's.
 * The collector itself never uses this.
 */
#include <string.h>

#include "internal.h"

#define ALIGN8(n) (((n) + 7u) & ~(size_t)7u)

size_t gs_synthetic_append(uint8_t *buf, size_t cap, size_t used, const void *rec, size_t size)
{
	uint64_t sz = size;
	size_t need = 8 + ALIGN8(size);

	if (used + need > cap)
		return 0;
	memcpy(buf + used, &sz, 8);
	memcpy(buf + used + 8, rec, size);
	memset(buf + used + 8 + size, 0, ALIGN8(size) - size);
	return used + need;
}

int gs_synthetic_next(uint8_t *buf, size_t valid, CUpti_Activity **rec)
{
	size_t off;
	uint64_t sz;

	if (*rec == NULL) {
		off = 0;
	} else {
		/* the size header sits just before the current record */
		uint8_t *cur = (uint8_t *)*rec;
		memcpy(&sz, cur - 8, 8);
		off = (size_t)(cur - buf) + ALIGN8(sz);
	}
	if (off + 8 > valid)
		return 1;
	memcpy(&sz, buf + off, 8);
	if (sz < sizeof(CUpti_Activity) || off + 8 + sz > valid)
		return 1;
	*rec = (CUpti_Activity *)(buf + off + 8);
	return 0;
}
