/*
 * driver.c: runs a libFuzzer target over files, without libFuzzer, so
 * that `make check` replays each target's committed corpus with the
 * ordinary compiler (a bounded smoke run; `make fuzz` searches for new
 * inputs with clang's libFuzzer).  Prints TAP: one line per file.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int one(const char *path, int n)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long len;

	if (!f || fseek(f, 0, SEEK_END) < 0 || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) < 0) {
		printf("not ok %d - cannot read %s\n", n, path);
		if (f)
			fclose(f);
		return 1;
	}
	buf = malloc((size_t)len + 1);
	if (!buf || fread(buf, 1, (size_t)len, f) != (size_t)len) {
		printf("not ok %d - cannot read %s\n", n, path);
		fclose(f);
		free(buf);
		return 1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, (size_t)len); /* a crash fails the test */
	free(buf);
	printf("ok %d - %s\n", n, path);
	return 0;
}

int main(int argc, char **argv)
{
	char **files = NULL;
	size_t nfiles = 0;
#ifdef CORPUS
	char *dflt[] = { argv[0], CORPUS, NULL };

	/* As a test: the target's committed corpus. */
	if (argc == 1) {
		argc = 2;
		argv = dflt;
	}
#endif

	for (int i = 1; i < argc; i++) {
		DIR *d = opendir(argv[i]);
		struct dirent *de;

		if (!d) {
			files = realloc(files, (nfiles + 1) * sizeof(*files));
			files[nfiles++] = strdup(argv[i]);
			continue;
		}
		while ((de = readdir(d))) {
			char p[4096];

			if (de->d_name[0] == '.')
				continue;
			snprintf(p, sizeof(p), "%s/%s", argv[i], de->d_name);
			files = realloc(files, (nfiles + 1) * sizeof(*files));
			files[nfiles++] = strdup(p);
		}
		closedir(d);
	}
	printf("1..%zu\n", nfiles);
	int failed = 0;
	for (size_t i = 0; i < nfiles; i++) {
		failed |= one(files[i], (int)i + 1);
		free(files[i]);
	}
	free(files);
	return failed;
}
