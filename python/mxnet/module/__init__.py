"""Modules (mx.mod / mx.module): symbolic models bound to devices, with MXNet 1.x's fit,
score and predict loops."""
from .base_module import BaseModule
from .module import Module
from .bucketing_module import BucketingModule
from .sequential_module import SequentialModule
from .python_module import PythonModule, PythonLossModule
from .executor_group import DataParallelExecutorGroup

__all__ = ["BaseModule", "Module", "BucketingModule", "SequentialModule", "PythonModule",
           "PythonLossModule", "DataParallelExecutorGroup"]
