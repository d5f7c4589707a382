// A "device" thread completes a request `service` us after it was issued (spinning, so its own
// timing is exact) and wakes the caller, which sleeps in a futex wait meanwhile; the caller's
// overshoot over `service` is what any device's completion costs a sleeping caller here
// (docs/benchmarks.md, the transit probe's section).
//
//   gcc -O2 -pthread -o /tmp/sleeping_caller bench/wake/sleeping_caller.c
//   /tmp/sleeping_caller SERVICE_US COUNT [1: the caller spins instead of sleeping]
#define _GNU_SOURCE
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
static int64_t now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}
static _Atomic int issued, done;
static _Atomic int64_t issue_at;
static int64_t service;
static void fwait(_Atomic int* a, int v) {
  syscall(SYS_futex, a, FUTEX_WAIT_PRIVATE, v, NULL, NULL, 0);
}
static void fwake(_Atomic int* a) {
  syscall(SYS_futex, a, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}
static void* dev(void* x) {
  for (;;) {
    int s;
    while ((s = atomic_load(&issued)) == atomic_load(&done)) fwait(&issued, s);
    int64_t until = atomic_load(&issue_at) + service;
    while (now() < until)
      ;
    atomic_fetch_add(&done, 1);
    fwake(&done);
  }
}
int cmp(const void* a, const void* b) {
  int64_t x = *(int64_t*)a, y = *(int64_t*)b;
  return x < y ? -1 : x > y;
}
int main(int c, char** v) {
  service = atoll(v[1]) * 1000;
  int n = atoi(v[2]);
  int spin = c > 3 ? atoi(v[3]) : 0;
  pthread_t t;
  pthread_create(&t, 0, dev, 0);
  int64_t* l = malloc(n * 8);
  for (int i = 0; i < n; i++) {
    int d = atomic_load(&done);
    int64_t t0 = now();
    atomic_store(&issue_at, t0);
    atomic_fetch_add(&issued, 1);
    fwake(&issued);
    if (spin)
      while (atomic_load(&done) == d)
        ;
    else
      while (atomic_load(&done) == d) fwait(&done, d);
    l[i] = now() - t0;
    usleep(0);
  }
  qsort(l, n, 8, cmp);
  printf("service %lld us, %s: min %.1f p50 %.1f p90 %.1f us\n", (long long)service / 1000,
         spin ? "caller spins" : "caller sleeps", l[0] / 1e3, l[n / 2] / 1e3, l[n * 9 / 10] / 1e3);
}
