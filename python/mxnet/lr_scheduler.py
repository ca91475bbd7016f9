"""Learning-rate schedules: callables from the update count to a learning rate.

Each schedule can start with a warm-up of `warmup_steps` updates that goes from
`warmup_begin_lr` to `base_lr` (linearly, or held constant), after which its own rule applies.
"""
import logging
from math import cos, pi

__all__ = ["LRScheduler", "FactorScheduler", "MultiFactorScheduler", "PolyScheduler",
           "CosineScheduler"]


class LRScheduler(object):
    """Base schedule: holds base_lr and the warm-up settings."""

    def __init__(self, base_lr=0.01, warmup_steps=0, warmup_begin_lr=0, warmup_mode="linear"):
        self.base_lr = base_lr
        if not isinstance(warmup_steps, int):
            raise TypeError("warmup_steps must be an int, got %r" % (warmup_steps,))
        if warmup_steps < 0:
            raise ValueError("Warmup steps has to be positive or 0")
        if warmup_begin_lr > base_lr:
            raise ValueError("Base lr has to be higher than warmup_begin_lr")
        if warmup_mode not in ("linear", "constant"):
            raise ValueError("Supports only linear and constant modes of warmup, got %r"
                             % (warmup_mode,))
        self.warmup_steps = warmup_steps
        self.warmup_final_lr = base_lr
        self.warmup_begin_lr = warmup_begin_lr
        self.warmup_mode = warmup_mode

    def get_warmup_lr(self, num_update):
        """The learning rate during warm-up (num_update < warmup_steps)."""
        if self.warmup_mode == "linear":
            frac = float(num_update) / float(self.warmup_steps)
            return self.warmup_begin_lr + (self.warmup_final_lr - self.warmup_begin_lr) * frac
        return self.warmup_begin_lr

    def __call__(self, num_update):
        raise NotImplementedError("LRScheduler is a base class; use one of its subclasses")


class FactorScheduler(LRScheduler):
    """Multiplies the rate by `factor` every `step` updates, never below stop_factor_lr."""

    def __init__(self, step, factor=1, stop_factor_lr=1e-8, base_lr=0.01, warmup_steps=0,
                 warmup_begin_lr=0, warmup_mode="linear"):
        super(FactorScheduler, self).__init__(base_lr, warmup_steps, warmup_begin_lr, warmup_mode)
        if step < 1:
            raise ValueError("Schedule step must be greater or equal than 1 round")
        if factor > 1.0:
            raise ValueError("Factor must be no more than 1 to make lr reduce")
        self.step = step
        self.factor = factor
        self.stop_factor_lr = stop_factor_lr
        self.count = 0

    def __call__(self, num_update):
        if num_update < self.warmup_steps:
            return self.get_warmup_lr(num_update)
        while num_update > self.count + self.step:
            self.count += self.step
            self.base_lr *= self.factor
            if self.base_lr < self.stop_factor_lr:
                self.base_lr = self.stop_factor_lr
                logging.info("Update[%d]: now learning rate arrived at %0.5e, will not change "
                             "in the future", num_update, self.base_lr)
            else:
                logging.info("Update[%d]: Change learning rate to %0.5e", num_update, self.base_lr)
        return self.base_lr


class MultiFactorScheduler(LRScheduler):
    """Multiplies the rate by `factor` each time the update count passes a listed step."""

    def __init__(self, step, factor=1, base_lr=0.01, warmup_steps=0, warmup_begin_lr=0,
                 warmup_mode="linear"):
        super(MultiFactorScheduler, self).__init__(base_lr, warmup_steps, warmup_begin_lr,
                                                   warmup_mode)
        if not isinstance(step, list) or not step:
            raise ValueError("MultiFactorScheduler needs a non-empty list of steps")
        for i, s in enumerate(step):
            if i and step[i] <= step[i - 1]:
                raise ValueError("Schedule step must be an increasing integer list")
            if s < 1:
                raise ValueError("Schedule step must be greater or equal than 1 round")
        if factor > 1.0:
            raise ValueError("Factor must be no more than 1 to make lr reduce")
        self.step = step
        self.cur_step_ind = 0
        self.factor = factor
        self.count = 0

    def __call__(self, num_update):
        if num_update < self.warmup_steps:
            return self.get_warmup_lr(num_update)
        while self.cur_step_ind < len(self.step) and num_update > self.step[self.cur_step_ind]:
            self.count = self.step[self.cur_step_ind]
            self.cur_step_ind += 1
            self.base_lr *= self.factor
            logging.info("Update[%d]: Change learning rate to %0.5e", num_update, self.base_lr)
        return self.base_lr


class _DecayToFinal(LRScheduler):
    """Shared part of Poly and Cosine: decay from base_lr to final_lr over max_update."""

    def __init__(self, max_update, base_lr, final_lr, warmup_steps, warmup_begin_lr, warmup_mode):
        super(_DecayToFinal, self).__init__(base_lr, warmup_steps, warmup_begin_lr, warmup_mode)
        if not isinstance(max_update, int) or max_update < 1:
            raise ValueError("maximum number of updates must be strictly positive")
        self.base_lr_orig = self.base_lr
        self.max_update = max_update
        self.final_lr = final_lr
        self.max_steps = self.max_update - self.warmup_steps

    def _shape(self, frac):
        raise NotImplementedError

    def __call__(self, num_update):
        if num_update < self.warmup_steps:
            return self.get_warmup_lr(num_update)
        if num_update <= self.max_update:
            frac = float(num_update - self.warmup_steps) / float(max(self.max_steps, 1))
            self.base_lr = self.final_lr + (self.base_lr_orig - self.final_lr) * self._shape(frac)
        return self.base_lr


class PolyScheduler(_DecayToFinal):
    """lr = final + (base - final) * (1 - progress)^pwr until max_update."""

    def __init__(self, max_update, base_lr=0.01, pwr=2, final_lr=0, warmup_steps=0,
                 warmup_begin_lr=0, warmup_mode="linear"):
        super(PolyScheduler, self).__init__(max_update, base_lr, final_lr, warmup_steps,
                                            warmup_begin_lr, warmup_mode)
        self.power = pwr

    def _shape(self, frac):
        return pow(1.0 - frac, self.power)


class CosineScheduler(_DecayToFinal):
    """lr = final + (base - final) * (1 + cos(pi * progress)) / 2 until max_update."""

    def __init__(self, max_update, base_lr=0.01, final_lr=0, warmup_steps=0, warmup_begin_lr=0,
                 warmup_mode="linear"):
        super(CosineScheduler, self).__init__(max_update, base_lr, final_lr, warmup_steps,
                                              warmup_begin_lr, warmup_mode)

    def _shape(self, frac):
        return (1.0 + cos(pi * frac)) / 2.0
