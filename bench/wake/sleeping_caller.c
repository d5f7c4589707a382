// What any device's completion costs a caller that sleeps while it waits, on this machine, with
// no FUSE and no disk model: a "device" thread completes each request a fixed service time after
// it was issued (spinning, so its own timing is exact) and wakes the caller, which sleeps in a
// futex wait meanwhile. Prints the caller's wait (issue to wake-up): min, p50, p90 and mean, all
// in us. With `spin`, the caller spins instead of sleeping. SERVICE_US may be fractional. The
// accuracy suite (bench/suite/accuracy.sh) runs it as "an ideal device of the model's speed". docs/benchmarks.md (the transit probe's section) has
// what it measured on the 2-core VM.
//
//   gcc -O2 -Wall -pthread -o /tmp/sleeping_caller bench/wake/sleeping_caller.c
//   /tmp/sleeping_caller SERVICE_US COUNT [spin]
#define _GNU_SOURCE
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static _Atomic int issued, completed;  // request counts
static _Atomic int64_t issued_at_ns;   // the last request's issue time
static int64_t service_ns;

static int64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void wait_while_equal(_Atomic int* word, int value) {
  syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, value, NULL, NULL, 0);
}

static void wake_one(_Atomic int* word) {
  syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

// The device: waits for a request, completes it service_ns after its issue, wakes the caller.
static void* device(void* unused) {
  (void)unused;
  for (;;) {
    int seen;
    while ((seen = atomic_load(&issued)) == atomic_load(&completed))
      wait_while_equal(&issued, seen);
    const int64_t until = atomic_load(&issued_at_ns) + service_ns;
    while (now_ns() < until) {
    }
    atomic_fetch_add(&completed, 1);
    wake_one(&completed);
  }
  return NULL;
}

static int by_value(const void* a, const void* b) {
  const int64_t x = *(const int64_t*)a, y = *(const int64_t*)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char** argv) {
  if (argc < 3 || atof(argv[1]) <= 0 || atoi(argv[2]) <= 0 ||
      (argc > 3 && strcmp(argv[3], "spin") != 0)) {
    fprintf(stderr, "usage: sleeping_caller SERVICE_US COUNT [spin]\n");
    return 2;
  }
  service_ns = (int64_t)(atof(argv[1]) * 1000);
  const int count = atoi(argv[2]);
  const int spin = argc > 3;
  int64_t* waits = malloc(sizeof(int64_t) * (size_t)count);
  pthread_t thread;
  if (waits == NULL || pthread_create(&thread, NULL, device, NULL) != 0) return 1;
  for (int i = 0; i < count; i++) {
    const int before = atomic_load(&completed);
    const int64_t start = now_ns();
    atomic_store(&issued_at_ns, start);
    atomic_fetch_add(&issued, 1);
    wake_one(&issued);
    while (atomic_load(&completed) == before) {
      if (!spin) wait_while_equal(&completed, before);
    }
    waits[i] = now_ns() - start;
  }
  qsort(waits, (size_t)count, sizeof(int64_t), by_value);
  double total = 0;
  for (int i = 0; i < count; i++) total += (double)waits[i];
  printf("service %.1f us, caller %s: min %.1f p50 %.1f p90 %.1f mean %.1f us\n",
         service_ns / 1e3, spin ? "spins" : "sleeps", waits[0] / 1e3, waits[count / 2] / 1e3,
         waits[count * 9 / 10] / 1e3, total / count / 1e3);
  return 0;
}
