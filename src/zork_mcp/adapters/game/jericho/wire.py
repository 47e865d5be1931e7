"""What the game process and its parent say to each other: a frame is a JSON object and,
when the game's state travels, the state's bytes behind it.

Neither side unpickles what the other sends: a child whose memory may be corrupt can send
garbage, never code. The state is ~13 KB of RAM and stack, sent raw after fixed fields.
"""

from __future__ import annotations

import json
import os
import struct
from dataclasses import dataclass
from typing import Any

FOLDER_PREFIX = "zork_mcp_game_"  # a game process's private folder, in the temp folder
_HEAD = struct.Struct(">II")  # JSON length, state length
_STATE = struct.Struct(">8qIII")  # registers, rng; then RAM, stack and narrative lengths
MAX_FRAME = 8 * 1024 * 1024  # a game state is ~13 KB; anything far larger is garbage


class WireError(Exception):
    """The other end closed its pipe or sent something that is not a frame."""


@dataclass(frozen=True)
class FrotzState:
    """Everything Jericho's get_state returns, as plain bytes and numbers."""

    ram: bytes
    stack: bytes
    pc: int
    sp: int
    fp: int
    frame_count: int
    opcode: int
    rng: tuple[int, int, int]
    narrative: bytes

    @classmethod
    def of_jericho(cls, state: Any) -> FrotzState:
        """Jericho's get_state tuple (RAM and stack as numpy arrays) as plain values."""
        ram, stack, pc, sp, fp, frame_count, opcode, rng, narrative = state
        return cls(
            bytes(ram.tobytes()),
            bytes(stack.tobytes()),
            int(pc),
            int(sp),
            int(fp),
            int(frame_count),
            int(opcode),
            (int(rng[0]), int(rng[1]), int(rng[2])),
            bytes(narrative or b""),
        )

    def to_bytes(self) -> bytes:
        fixed = _STATE.pack(
            self.pc,
            self.sp,
            self.fp,
            self.frame_count,
            self.opcode,
            *self.rng,
            len(self.ram),
            len(self.stack),
            len(self.narrative),
        )
        return fixed + self.ram + self.stack + self.narrative

    @classmethod
    def from_bytes(cls, data: bytes) -> FrotzState:
        if len(data) < _STATE.size:
            raise WireError("a game state shorter than its fixed fields")
        pc, sp, fp, frames, opcode, a, interval, counter, ram, stack, narrative = (
            _STATE.unpack_from(data)
        )
        if _STATE.size + ram + stack + narrative != len(data):
            raise WireError("a game state whose parts do not add up to its length")
        start, middle = _STATE.size, _STATE.size + ram
        return cls(
            data[start:middle],
            data[middle : middle + stack],
            pc,
            sp,
            fp,
            frames,
            opcode,
            (a, interval, counter),
            data[middle + stack :],
        )


@dataclass(frozen=True)
class Frame:
    message: dict[str, Any]
    state: FrotzState | None = None


def send(fd: int, message: dict[str, Any], state: FrotzState | None = None) -> None:
    payload = json.dumps(message).encode("ascii")
    blob = state.to_bytes() if state is not None else b""
    data = memoryview(_HEAD.pack(len(payload), len(blob)) + payload + blob)
    while data:
        data = data[os.write(fd, data) :]


def receive(fd: int) -> Frame:
    size, state_size = _HEAD.unpack(_read_exactly(fd, _HEAD.size))
    if size + state_size > MAX_FRAME:
        raise WireError(f"a frame of {size + state_size} bytes is larger than any game message")
    try:
        message = json.loads(_read_exactly(fd, size))
    except ValueError as e:
        raise WireError(f"a frame that is not JSON: {e}") from e
    if not isinstance(message, dict):
        raise WireError("a frame that is not a JSON object")
    state = FrotzState.from_bytes(_read_exactly(fd, state_size)) if state_size else None
    return Frame(message, state)


def _read_exactly(fd: int, size: int) -> bytes:
    chunks, missing = [], size
    while missing:
        chunk = os.read(fd, missing)
        if not chunk:
            raise WireError("the pipe closed")
        chunks.append(chunk)
        missing -= len(chunk)
    return b"".join(chunks)
