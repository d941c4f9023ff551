// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target: the fuzz input is a capture file, byte for byte.  Runs what
 * `fabtrace info`, `info --json` and `report` (text, JSON, every timeline)
 * do with it.
 *
 * The header CRC and each block's CRC are repaired before the file is
 * written (when the lengths allow), so a mutation of a length or a field
 * reaches the checks after the CRC instead of always failing it.  The
 * payload is left alone: a mutated zlib payload fails inflate (adler32); a
 * mutated zstd one (written without a checksum of its own) often still
 * decompresses, and its records meet the reader's checks.  fuzz_records
 * mutates the records themselves.
 */
#include <zlib.h>

#include "tests/fuzz/fuzz.h"
#include "userspace/capture/capture.h"
#include "userspace/cli/commands.h"
#include "lib/util.h"

static struct fz_file in;
static int out_fd;           /* stdout: what `info` prints */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fz_file_init(&in, "fuzz_capture");
	out_fd = memfd_create("fuzz_capture_stdout", MFD_CLOEXEC);
	FZ_CHECK(out_fd >= 0 && dup2(out_fd, STDOUT_FILENO) == STDOUT_FILENO, "stdout to a memfd");
	return 0;
}

static void fix_crcs(uint8_t *buf, size_t size)
{
	struct ft_file_header h;
	size_t off = sizeof(h);

	if (size < sizeof(h))
		return;
	memcpy(&h, buf, sizeof(h));
	h.crc = 0;
	h.crc = (uint32_t)crc32(0L, (const Bytef *)&h, sizeof(h));
	memcpy(buf, &h, sizeof(h));
	while (size - off >= sizeof(struct ft_block_header)) {
		struct ft_block_header bh;
		uLong crc;

		memcpy(&bh, buf + off, sizeof(bh));
		if (bh.clen > size - off - sizeof(bh))
			break;
		bh.crc = 0;
		crc = crc32(0L, (const Bytef *)&bh, sizeof(bh));
		bh.crc = (uint32_t)crc32(crc, buf + off + sizeof(bh), bh.clen);
		memcpy(buf + off, &bh, sizeof(bh));
		off += sizeof(bh) + bh.clen;
	}
}

/* `fabtrace info [--json] FILE`: exit code 0..2; with --json stdout is one JSON document. */
static void run_info(bool json)
{
	char *argv[] = { "info", json ? "--json" : in.path, json ? in.path : NULL, NULL };
	int argc = json ? 3 : 2, rc;
	char buf[1 << 16];
	ssize_t n;

	fflush(stdout);
	/* again per run: -close_fd_mask=1 points stdout at /dev/null after LLVMFuzzerInitialize */
	FZ_CHECK(dup2(out_fd, STDOUT_FILENO) == STDOUT_FILENO, "stdout to the memfd");
	FZ_CHECK(ftruncate(STDOUT_FILENO, 0) == 0 && lseek(STDOUT_FILENO, 0, SEEK_SET) == 0, "reset stdout");
	rc = cmd_info(argc, argv);
	util_set_json(false);  /* cmd_info leaves JSON mode on */
	fflush(stdout);
	FZ_CHECK(rc >= 0 && rc <= 2, "info returned %d", rc);
	n = pread(STDOUT_FILENO, buf, sizeof(buf) - 1, 0);
	FZ_CHECK(n >= 0, "read stdout back");
	buf[n] = '\0';
	if (json && (size_t)n < sizeof(buf) - 1)
		FZ_CHECK(fz_json_ok(buf, (size_t)n), "info --json printed invalid JSON (exit %d)", rc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct model_opts mo;
	struct fz_opts o;
	struct model *m = NULL;
	char err[512];
	uint8_t *buf;
	int ret;

	if (size > (4u << 20))
		return -1;
	buf = malloc(size ? size : 1);
	FZ_CHECK(buf != NULL, "out of memory");
	if (size)
		memcpy(buf, data, size);
	fix_crcs(buf, size);
	fz_file_set(&in, buf, size);
	free(buf);

	run_info(size & 1);   /* one of the two per input: info allocates a lot */

	model_opts__init(&mo);
	ret = model__load(in.path, &mo, &m, err, sizeof(err));
	FZ_CHECK(ret <= 0, "model__load returned %d", ret);
	FZ_CHECK(strlen(err) < sizeof(err), "error message not terminated");
	if (ret) {
		FZ_CHECK(m == NULL, "model__load failed but returned a model");
		return 0;
	}
	FZ_CHECK(m->end_ns >= m->start_ns && m->duration_ns == m->end_ns - m->start_ns,
		 "capture span: start %llu end %llu duration %llu", (unsigned long long)m->start_ns,
		 (unsigned long long)m->end_ns, (unsigned long long)m->duration_ns);
	fz_opts_init(&o);
	fz_render(m, &o);
	model__free(m);
	return 0;
}
