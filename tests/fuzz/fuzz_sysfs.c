// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target: a sysfs tree of RDMA devices, as the counter sampler
 * (rdma/) reads it, and the options that select from it.  The input is
 * NUL-separated strings:
 *
 *   DEVICES  FILTER  LIFESPAN    --rdma-devices, --rdma-counters (empty:
 *                                not given), --rdma-lifespan in ms (empty: 0)
 *   PATH CONTENT ...             files under ROOT/class/infiniband/
 *   ""                           then more PATH CONTENT pairs: files changed
 *   PATH CONTENT ...             between the first and the second sample
 *
 * PATH components may not be empty, "." or ".."; no symlinks are made.
 * The tree lives in a private directory under $TMPDIR (unset: /dev/shm,
 * else /tmp), rebuilt per run.
 * Runs sampler__open (port discovery, attribute parsing, --rdma-devices
 * parsing, counter listing and classification, hw_counters/lifespan),
 * describe, two samples and close, and feeds every record it emits to a
 * model, which is then rendered like `report` would.  Checks: the records
 * are well-formed (sizes, n values in a sample), the model takes them all.
 */
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <sys/stat.h>

#include "tests/fuzz/fuzz.h"
#include "rdma/sampler.h"
#include "userspace/capture/capture.h"

static char root[PATH_MAX];

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	if (ftw->level > 0)
		remove(path);
	return 0;
}

static void clear_root(void)
{
	nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void remove_root(void)
{
	clear_root();
	rmdir(root);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *tmp = getenv("TMPDIR");

	(void)argc;
	(void)argv;
	/* a tree per run: on a disk file system inode churn is most of the time, so RAM first */
	if (!tmp || !tmp[0])
		tmp = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	snprintf(root, sizeof(root), "%s/fuzz_sysfs.XXXXXX", tmp);
	FZ_CHECK(mkdtemp(root) != NULL, "%s: %s", root, strerror(errno));
	atexit(remove_root);
	return 0;
}

/* Write ROOT/class/infiniband/REL with CONTENT, making the directories; false if REL is refused. */
static bool put_file(const char *rel, const char *content)
{
	char path[PATH_MAX], *p;
	size_t rl = strlen(rel);
	int fd, depth = 0;

	if (!rl || rel[0] == '/' || rl > 200)
		return false;
	for (const char *c = rel; *c;) {
		size_t n = strcspn(c, "/");

		if (!n || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.') || ++depth > 8)
			return false;
		c += n + (c[n] == '/');
		if (c[-1] == '/' && !*c)
			return false;
	}
	snprintf(path, sizeof(path), "%s/class/infiniband/%s", root, rel);
	/* mkdir -p of the parents; a file where a directory should be fails the open below */
	for (p = path + strlen(root) + 1; (p = strchr(p, '/')) != NULL; p++) {
		*p = '\0';
		mkdir(path, 0700);
		*p = '/';
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return true;   /* e.g. a directory of that name exists: the tree just has no such file */
	if (write(fd, content, strlen(content)) < 0)
		(void)0;
	close(fd);
	return true;
}

struct sink {
	struct model *m;
	size_t records;
};

static int emit(void *ctx, const struct ft_rec_hdr *rec)
{
	struct sink *k = ctx;
	size_t want = capture__rec_size(rec->type);
	struct ft_rec_hdr *copy;
	int ret;

	FZ_CHECK(want && rec->size >= want && rec->size % 8 == 0, "sampler emitted a bad record: type %u size %u",
		 rec->type, rec->size);
	if (rec->type == FT_REC_CTR_SAMPLE) {
		const struct ft_ctr_sample *s = (const void *)rec;

		FZ_CHECK(rec->size == sizeof(*s) + 8ull * s->n, "sample of %u values in %u bytes", s->n, rec->size);
	}
	/* the model's own copy, exactly the record's size: ASan sees any read past it */
	copy = malloc(rec->size);
	FZ_CHECK(copy != NULL, "out of memory");
	memcpy(copy, rec, rec->size);
	ret = model__add(k->m, copy);
	free(copy);
	FZ_CHECK(ret == 0, "model__add of a sampler record (type %u) returned %d", rec->type, ret);
	k->records++;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ft_file_header h;
	struct sampler_opts so;
	struct sampler *s = NULL;
	struct sink k = { 0 };
	struct model_opts mo;
	struct fz_opts o;
	char *buf, *p, *end, *str[3], err[512];
	char *second = NULL;
	int ret;

	if (size > 65536)
		return -1;
	buf = fz_strndup(data, size);
	end = buf + size;
	p = buf;
	for (int i = 0; i < 3; i++) {
		str[i] = p < end ? p : "";
		p += p < end ? strlen(p) + 1 : 0;
	}
	clear_root();
	FZ_CHECK(mkdir(root, 0700) == 0 || errno == EEXIST, "mkdir %s", root);
	while (p < end) {
		char *path = p, *content;

		p += strlen(p) + 1;
		if (!path[0]) {     /* the rest comes after the first sample */
			second = p;
			break;
		}
		content = p < end ? p : "";
		p += p < end ? strlen(p) + 1 : 0;
		if (!put_file(path, content)) {
			free(buf);
			return -1;
		}
	}

	sampler_opts__init(&so);
	so.sysfs_root = root;
	so.no_nic = true;
	so.period_ns = 10000000;
	so.devices = str[0][0] ? str[0] : NULL;
	so.rdma_filter = str[1][0] ? str[1] : NULL;
	so.lifespan_ms = (uint32_t)strtoul(str[2], NULL, 10);
	if (so.lifespan_ms > 10000)
		so.lifespan_ms = 0;   /* the CLI refuses more */
	memset(err, 'X', sizeof(err));
	ret = sampler__open(&so, &s, err, sizeof(err));
	FZ_CHECK(memchr(err, '\0', sizeof(err)), "sampler__open: error not terminated");
	if (ret) {
		FZ_CHECK(ret < 0 && !s && err[0], "sampler__open returned %d without a reason", ret);
		free(buf);
		return 0;
	}

	memset(&h, 0, sizeof(h));
	memcpy(h.magic, FT_MAGIC, sizeof(h.magic));
	h.version = FT_FORMAT_VERSION;
	h.header_size = sizeof(h);
	h.start_mono_ns = 1000000000000ull;
	h.bin_ns = 100000;
	model_opts__init(&mo);
	k.m = model__new(&h, &mo);
	FZ_CHECK(k.m != NULL, "model__new");

	FZ_CHECK(sampler__describe(s, emit, &k) == 0, "sampler__describe failed");
	FZ_CHECK(sampler__sample(s, h.start_mono_ns + 10000000, emit, &k) == 0, "first sample failed");
	while (second && second < end) {
		char *path = second, *content;

		second += strlen(second) + 1;
		content = second < end ? second : "";
		second += second < end ? strlen(second) + 1 : 0;
		if (path[0])
			(void)put_file(path, content);
	}
	FZ_CHECK(sampler__sample(s, h.start_mono_ns + 20000000, emit, &k) == 0, "second sample failed");
	sampler__close(s, emit, &k);

	ret = model__finish(k.m);
	fz_check_ret(ret, "model__finish");
	if (!ret) {
		fz_opts_init(&o);
		fz_render(k.m, &o);
	}
	model__free(k.m);
	free(buf);
	return 0;
}
