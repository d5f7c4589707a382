#!/usr/bin/python3
"""untar_fsync.py TARBALL DIR: extracts TARBALL into DIR like `tar -xf`, with an fsync of every
file before it is closed (what a package manager or an installer that wants its files durable
does). Directories and regular files only; modes kept, times not restored."""
import os
import sys
import tarfile


def main():
    tarball, dest = sys.argv[1], sys.argv[2]
    with tarfile.open(tarball) as archive:
        for member in archive:
            path = os.path.join(dest, member.name)
            if member.isdir():
                os.makedirs(path, exist_ok=True)
            elif member.isfile():
                data = archive.extractfile(member).read()
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, member.mode & 0o7777)
                try:
                    os.write(fd, data)
                    os.fsync(fd)
                finally:
                    os.close(fd)


if __name__ == "__main__":
    main()
