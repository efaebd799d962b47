"""Writes a small .npz whose members expand far beyond it: sys.argv[2]
members, each a float32 array of sys.argv[3] zero elements, deflated (with
sys.argv[4] == "U": one <U1048576 array of 4 elements instead)."""
import struct
import sys
import zipfile


def npy(descr, shape, data):
    dims = "".join("%d, " % d for d in shape)
    head = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (descr, dims)
    head += " " * (63 - (10 + len(head)) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(head)) + head.encode() + data


with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
    if len(sys.argv) > 4 and sys.argv[4] == "U":
        z.writestr("u.npy", npy("<U1048576", [4], bytes(4 * 4 * 1048576)))
    else:
        n = int(sys.argv[3])
        for i in range(int(sys.argv[2])):
            z.writestr("m%d.npy" % i, npy("<f4", [n], bytes(4 * n)))
