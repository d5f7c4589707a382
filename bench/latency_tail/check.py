#!/usr/bin/python3
"""check.py CLAT_LOG TAIL|TABLE SEED SERVICE_NS (TABLE: a latency_table, "0.5:0.9,0.99:3,1:8"): compares fio's completion latencies (a --write_lat_log
clat log of a queue-depth-1 run, ns) with the latency tail's model (core/disk_model.h): each I/O
should take SERVICE_NS times the factor of its piece, plus the mount's own small overhead and
never less. Prints the per-I/O excess, the Kolmogorov-Smirnov distance between the measured and
the expected distribution (shifted by the median excess) and both p50 and p99; exits 1 when an
I/O came back before its model time, KS > 0.05 or p99 is off by more than 10%."""
import bisect
import math
import sys
M=(1<<64)-1
def mix64(x):
    x=(x+0x9E3779B97F4A7C15)&M
    x=((x^(x>>30))*0xBF58476D1CE4E5B9)&M
    x=((x^(x>>27))*0x94D049BB133111EB)&M
    return x^(x>>31)
def unit(b): return ((b>>11)+1)*2.0**-53
def factor(tail,seed,i):
    s=math.log(tail)/2.3263478740408408
    key=((seed<<32)^mix64(i))&M
    u1=unit(mix64(key)); u2=unit(mix64(key^0xD1B54A32D192ED03))
    z=math.sqrt(-2*math.log(u1))*math.cos(2*math.pi*u2)
    return math.exp(s*z-s*s/2)
def parse_table(text):
    pts=[tuple(float(v) for v in p.split(':')) for p in text.split(',')]
    mean=pts[0][0]*pts[0][1]+sum((b[0]-a[0])*(a[1]+b[1])/2 for a,b in zip(pts,pts[1:]))
    return [(q,m/mean) for q,m in pts]
def table_factor(pts,seed,i):
    # core/latency_table.h: the quantile function at a uniform draw from (seed, index).
    key=((seed<<32)^mix64(i^0x5851F42D4C957F2D))&M
    u=(mix64(key)>>11)*2.0**-53
    if u<=pts[0][0]: return pts[0][1]
    for (qa,ma),(qb,mb) in zip(pts,pts[1:]):
        if u<=qb: return ma+(mb-ma)*(u-qa)/(qb-qa)
    return pts[-1][1]
log, shape, seed, base_ns = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
if ':' in shape:  # a latency table (quantile:multiplier,...)
    table=parse_table(shape)
    factor=lambda _tail,seed,i: table_factor(table,seed,i)
    tail=None
else:
    tail=float(shape)
meas=[int(l.split(',')[1]) for l in open(log)]
# The model's piece numbers of fio's reads start after whatever the mount served before (fio's
# layout reads): take the offset that lines the sequences up best.
factors = [factor(tail, seed, i) for i in range(len(meas) + 500)]
best = None
for off in range(0, 500):
    exp = [base_ns * factors[off + i] for i in range(len(meas))]
    d = sorted(m - e for m, e in zip(meas, exp))
    spread = d[9 * len(d) // 10] - d[len(d) // 10]  # tight only when the sequences line up
    if best is None or spread < best[0]:
        best = (spread, off, d, exp)
_, off, d, exp = best
n=len(d)
bands={}
for m, e in zip(meas, exp):
    bands.setdefault(min(int(e / base_ns * 2) / 2, 3.0), []).append(m - e)
print("median excess by model time / base (us): " + ", ".join(
    f"{k:g}x: {sorted(v)[len(v)//2]/1e3:.1f} ({len(v)})" for k, v in sorted(bands.items())))
print(f"piece offset {off}; measured - expected per I/O (us): min {d[0]/1e3:.1f} p1 {d[n//100]/1e3:.1f} p50 {d[n//2]/1e3:.1f} p99 {d[99*n//100]/1e3:.1f} max {d[-1]/1e3:.1f}")
# Distribution comparison. The mount adds its own small time to every read (the excess d above),
# so the measured distribution is the model's convolved with that overhead. KS is taken against
# exactly that: each model time plus an excess drawn (seeded shuffle) from the measured excesses.
# A shift by the median excess alone is printed too; it is the stricter reading for a smooth
# distribution but not for a table with an atom (a "0.5:0.9" point puts half of all reads at one
# time, which any jitter spreads, and KS against an atom measures only that jitter).
import random
shift=d[n//2]
ms=sorted(meas)
def ks_of(a, b):
    return max(abs(bisect.bisect_right(a,x)/n - bisect.bisect_right(b,x)/n) for x in a+b)
es=sorted(e+shift for e in exp)
excess=[m - e for m, e in zip(meas, exp)]
random.Random(seed).shuffle(excess)
conv=sorted(e + x for e, x in zip(exp, excess))
ks_shift=ks_of(ms, es)
ks=ks_of(ms, conv)
print(f"KS(measured, expected + the measured overhead) = {ks:.3f} (against expected + median overhead {shift/1e3:.1f} us: {ks_shift:.3f})")
print(f"p99 measured {ms[99*n//100]/1e3:.0f} us vs expected {es[99*n//100]/1e3:.0f} us; p50 {ms[n//2]/1e3:.0f} vs {es[n//2]/1e3:.0f}")
early = d[0] < 0
bad_p99 = abs(ms[99 * n // 100] / es[99 * n // 100] - 1) > 0.10
print("verdict:", "FAIL" if early or ks > 0.05 or bad_p99 else "ok",
      "(an I/O before its model time)" if early else "")
sys.exit(1 if early or ks > 0.05 or bad_p99 else 0)
