"""A fovea world driven as a pybullet script drives one (docs/python.md, "Driving a world like pybullet").

    ./fovea python experiments/python/world_api_example.py [--frames N] [--out DIR]

Builds a small room of balls, adds a voxel model made in NumPy (an L-shaped beam), throws a
ball at it by setting the ball's pose and velocity, steps the world and reports the beam's
pose and the collisions it takes part in, draws the frame before and after offscreen into
DIR/before.png and DIR/after.png, removes the beam, and resets the world to show that it
then steps exactly as a new one. Only NumPy and the standard library (the pictures are
written with zlib): it runs after `./fovea build` on a machine with no display.
"""

import argparse
import os
import struct
import sys
import zlib

import numpy as np

import fovea

CONFIG = {
    "name": "world_api_example",
    "world": {"box_size_m": [10, 10, 10],
              "entities": [{"name": "balls", "count": 40,
                            "model": {"shape": "ball", "size_m": 0.5, "resolution_voxels": 8},
                            "material": {"colour": [0.85, 0.55, 0.25]}}]},
    "response": {"gravity_mps2": [0, 0, 0]},
    "budget": {"mode": "work", "tests": 2000},
}


def write_png(path, picture):
    """A (height, width, 3) uint8 array as an 8-bit RGB PNG, rows unfiltered."""
    height, width, _ = picture.shape
    rows = b"".join(b"\x00" + picture[y].tobytes() for y in range(height))

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    with open(path, "wb") as out:
        out.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)) +
                  chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def l_beam():
    """An L-shaped beam, 16 x 8 x 4 voxels indexed [x, y, z]: True where solid."""
    voxels = np.zeros((16, 8, 4), dtype=bool)
    voxels[:, :3, :] = True   # the long arm along x
    voxels[:3, :, :] = True   # the short arm along y
    return voxels


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--frames", type=int, default=100, help="frames to step after the throw (default 100)")
    parser.add_argument("--out", default=".", help="folder for before.png and after.png (default: here)")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)

    world = fovea.World(CONFIG)
    dt = world.config.time_step_s

    # createCollisionShape + createMultiBody: a model from a NumPy array, an entity of it.
    beam_model = world.add_model(l_beam(), group="balls", voxel_size_m=0.125)
    beam = world.add_entity(beam_model, position_m=[5.0, 5.0, 5.0], orientation_xyzw=[0.0, 0.0, 0.0, 1.0])
    print("added entity %d of model %d (%d voxels of 0.125 m)" % (beam, beam_model, l_beam().sum()))

    # resetBasePositionAndOrientation + resetBaseVelocity: a ball thrown at the beam along x.
    ball = 0
    world.set_pose(ball, position_m=[2.0, 5.0, 5.0], orientation_xyzw=[0.0, 0.0, 0.0, 1.0])
    world.set_velocity(ball, velocity_mps=[4.0, 0.0, 0.0], angular_velocity_radps=[0.0, 0.0, 0.0])
    write_png(os.path.join(args.out, "before.png"), world.render(width_px=320))

    hits = 0
    for frame in range(args.frames):
        world.step()
        c = world.collisions()
        with_beam = (c["entity_a"] == beam) | (c["entity_b"] == beam)
        hits += int(np.count_nonzero(with_beam & c["colliding"]))
        if frame % max(1, args.frames // 4) == 0 or frame == args.frames - 1:
            position, orientation = world.pose(beam)   # getBasePositionAndOrientation
            velocity, spin = world.velocity(beam)      # getBaseVelocity
            print("t %.2f s: beam at %s m, turned %s (x, y, z, w), moving %.3f m/s, spinning %.3f rad/s"
                  % ((frame + 1) * dt, np.round(position, 3) + 0.0, np.round(orientation, 3) + 0.0,
                     np.linalg.norm(velocity), np.linalg.norm(spin)))
    print("collisions of the beam (pairs colliding, summed over frames): %d" % hits)
    write_png(os.path.join(args.out, "after.png"), world.render(width_px=320))

    # removeBody, then resetSimulation: the world as a new World of the same config starts.
    world.remove_entity(beam)
    world.step()
    world.reset()
    fresh = fovea.World(world.config)
    world.step(10)
    fresh.step(10)
    same = all(np.array_equal(a, b) for a, b in zip(world.entities().values(), fresh.entities().values()))
    print("a reset world steps as a fresh one: %s" % same)
    print("pictures: %s, %s" % (os.path.join(args.out, "before.png"), os.path.join(args.out, "after.png")))
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
