"""An independent SunSpec device for the driver test: pymodbus serves registers laid out from the
SunSpec model definitions (ordered point lists, offsets summed here), values set by point name.

usage: pymodbus_sunspec_server.py PORT LAYOUT_JSON DEVICES_JSON
DEVICES_JSON: {"unitId": [[model, {"Point": value, ...}], ...], ...}; prints READY when serving.
Model 160 takes "modules": [{"Point": value, ...}, ...], laid out from its repeating point list; N is set.
"""
import asyncio
import json
import math
import struct
import sys

from pymodbus.datastore import ModbusSequentialDataBlock, ModbusServerContext, ModbusSlaveContext
from pymodbus.server import StartAsyncTcpServer

MISSING = {"int16": [0x8000], "sunssf": [0x8000], "uint16": [0xFFFF], "enum16": [0xFFFF], "bitfield16": [0xFFFF],
           "int32": [0x8000, 0], "uint32": [0xFFFF, 0xFFFF], "bitfield32": [0xFFFF, 0xFFFF], "float32": [0x7FC0, 0]}


def encode(kind, size, value):
    if kind == "string":
        raw = value.encode("latin1")[: size * 2].ljust(size * 2, b"\0")
        return list(struct.unpack(">%dH" % size, raw))
    if kind == "float32":
        return list(struct.unpack(">2H", struct.pack(">f", value)))
    if size == 2:
        return list(struct.unpack(">2H", struct.pack(">I", int(value) & 0xFFFFFFFF)))
    return [int(value) & 0xFFFF]


def block(points, values):
    words = []
    for name, kind, size in points:
        if name in values:
            words += encode(kind, size, values[name])
        elif kind in MISSING and (kind != "float32" or size == 2):
            words += MISSING[kind]
        else:
            words += [0] * size
    return words


def layout(models, layouts, base=40000):
    regs = {base: 0x5375, base + 1: 0x6E53}
    addr = base + 2
    for model_id, values in models:
        entry = layouts[str(model_id)]
        entry = layouts[entry["same"]] if "same" in entry else entry
        modules = values.get("modules", [])
        if modules:
            values = dict(values, N=len(modules))
        words = block(entry["points"], values)
        for module in modules:
            words += block(entry["repeating"], module)
        regs[addr] = model_id
        regs[addr + 1] = len(words)
        for i, w in enumerate(words):
            regs[addr + 2 + i] = w
        addr += 2 + len(words)
    regs[addr], regs[addr + 1] = 0xFFFF, 0
    return regs


async def main():
    port, layout_path, devices = int(sys.argv[1]), sys.argv[2], json.loads(sys.argv[3])
    with open(layout_path) as f:
        layouts = json.load(f)
    slaves = {}
    for unit, models in devices.items():
        regs = layout(models, layouts)
        block = [0] * 65536
        for a, w in regs.items():
            block[a] = w
        # pymodbus 3.0 shifts every address by one unless zero_mode is set.
        slaves[int(unit)] = ModbusSlaveContext(hr=ModbusSequentialDataBlock(0, block), zero_mode=True)
    context = ModbusServerContext(slaves=slaves, single=False)
    loop = asyncio.get_running_loop()
    loop.call_later(0.3, lambda: print("READY", flush=True))
    await StartAsyncTcpServer(context=context, address=("127.0.0.1", port))


asyncio.run(main())
