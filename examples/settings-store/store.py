"""A tiny settings store, the kind many applications have: one JSON file per record, each saved
safely (write a temporary file, fsync it, rename it over the old one, fsync the directory).

save() makes one record durable at a time; save_all() writes every record first and makes them
durable together (one fsync each, then one directory fsync), which costs a slow disk far less.
"""
import json
import os


def _fsync_dir(directory):
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def save(directory, name, record):
    """Makes `record` durable as <directory>/<name>.json before it returns."""
    temp = os.path.join(directory, name + ".tmp")
    with open(temp, "w") as f:
        json.dump(record, f)
        f.flush()
        os.fsync(f.fileno())
    os.rename(temp, os.path.join(directory, name + ".json"))
    _fsync_dir(directory)


def save_all(directory, records):
    """Makes every (name, record) durable before it returns, with one directory fsync."""
    temps = []
    for name, record in records:
        temp = os.path.join(directory, name + ".tmp")
        with open(temp, "w") as f:
            json.dump(record, f)
        temps.append((temp, os.path.join(directory, name + ".json")))
    for temp, _ in temps:
        fd = os.open(temp, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    for temp, final in temps:
        os.rename(temp, final)
    _fsync_dir(directory)


def load(directory, name):
    with open(os.path.join(directory, name + ".json")) as f:
        return json.load(f)
