"""fovea from Python (docs/python.md).

The compiled module fovea._fovea holds fovea's framework itself, the same static libraries
the fovea program links: load_config, World, run, sweep, experiment and fit. The readers of results
(read_run, read_study) are Python's own, pandas over the files the runs wrote.

    import fovea
    world = fovea.World("configs/studies/packed500.yaml", overrides={"frames": 100})
    stats = world.step()          # the frame's frames.csv row, as a dict
    poses = world.entities()      # NumPy arrays: position_m, orientation_xyzw, ...
    world.set_pose(3, [5, 5, 5])  # as pybullet's resetBasePositionAndOrientation
    picture = world.render()      # (height, width, 3) uint8, offscreen
"""

from ._fovea import (  # noqa: F401  (the package's public names)
    Config,
    ConfigError,
    RunError,
    World,
    __version__,
    experiment,
    fit,
    fovea_binary,
    git_commit,
    load_config,
    run,
    sweep,
)
from .results import ResultsError, read_run, read_study  # noqa: F401
