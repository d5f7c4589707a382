#!/usr/bin/python3
"""make_tree.py DIR FILES: a source-like tree of FILES small files under DIR, always the same.

Directories of 10 to 40 files, two levels deep; file sizes log-uniform from 100 B to 64 KiB
(median about 2.5 KiB, as in /usr/include), contents printable text. Seeded: every run, every
machine, the same tree.
"""
import math
import os
import random
import sys


def main():
    root, count = sys.argv[1], int(sys.argv[2])
    rng = random.Random(12)
    made = 0
    top = 0
    while made < count:
        for sub in range(rng.randint(2, 6)):
            d = os.path.join(root, f"pkg{top:03d}", f"mod{sub:02d}")
            os.makedirs(d, exist_ok=True)
            for _ in range(rng.randint(10, 40)):
                if made == count:
                    return
                size = int(math.exp(rng.uniform(math.log(100), math.log(65536))))
                line = f"/* file {made} of the diskcond apps tree */ int f{made}(void);\n"
                body = (line * (size // len(line) + 1))[:size]
                name = f"file{made:05d}" + rng.choice([".h", ".c", ".txt", ".py"])
                with open(os.path.join(d, name), "w") as f:
                    f.write(body)
                made += 1
        top += 1


if __name__ == "__main__":
    main()
