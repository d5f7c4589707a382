"""The store's tests, with a latency budget: saving a user's 20 settings must take under a
second, as it does on the developer's SSD. Run them on a slow disk to see which path is slow:

    python3 -m unittest -v                              # here: both pass
    dmc run ./data 0 -- python3 -m unittest -v          # a "Faulty 5400 HDD": save() fails

DATA_DIR (default ./data) is where the records go.
"""
import os
import time
import unittest

import store

BUDGET_SECONDS = 1.0
RECORDS = [("setting-%02d" % i, {"value": i}) for i in range(20)]


class StoreTest(unittest.TestCase):
    def setUp(self):
        self.dir = os.path.join(os.environ.get("DATA_DIR", "data"), "store-%d" % os.getpid())
        os.makedirs(self.dir, exist_ok=True)

    def tearDown(self):
        for name in os.listdir(self.dir):
            os.unlink(os.path.join(self.dir, name))
        os.rmdir(self.dir)

    def check(self, save_records):
        start = time.monotonic()
        save_records()
        took = time.monotonic() - start
        for name, record in RECORDS:
            self.assertEqual(store.load(self.dir, name), record)
        print(" %.3f s" % took, end="", flush=True)
        self.assertLess(took, BUDGET_SECONDS, "saving %d settings took %.2f s" % (len(RECORDS), took))

    def test_save_one_at_a_time(self):
        self.check(lambda: [store.save(self.dir, name, record) for name, record in RECORDS])

    def test_save_all_together(self):
        self.check(lambda: store.save_all(self.dir, RECORDS))


if __name__ == "__main__":
    unittest.main()
