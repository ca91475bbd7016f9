/*
 * Bare MPI_Allreduce (float32 sum, in place), the reference for
 * benchmark/python/kvstore_allreduce.py, which compiles it with mpicc into a temporary
 * directory and runs it with mpirun. Rank 0 prints one JSON object per case on stdout:
 *
 *   mpi_allreduce WARMUP REPEATS OPS:BYTES[:KEYS] ...
 *
 * A case allreduces BYTES of float32 KEYS times (default 1: one buffer; KEYS > 1: that many
 * separate buffers, one MPI_Allreduce each, as the kvstore's unfused small keys) per op, OPS
 * ops per timed repeat. Every repeat starts after an MPI_Barrier and is timed on rank 0 with
 * MPI_Wtime; the output lists the seconds per op of each repeat after WARMUP untimed ones.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 4) {
    if (rank == 0) fprintf(stderr, "usage: %s WARMUP REPEATS OPS:BYTES[:KEYS]...\n", argv[0]);
    MPI_Finalize();
    return 2;
  }
  const int warmup = atoi(argv[1]), repeats = atoi(argv[2]);
  for (int a = 3; a < argc; ++a) {
    long ops = 0, bytes = 0, keys = 1;
    if (sscanf(argv[a], "%ld:%ld:%ld", &ops, &bytes, &keys) < 2 || ops < 1 || bytes < 4 || keys < 1) {
      if (rank == 0) fprintf(stderr, "bad case %s\n", argv[a]);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const long count = bytes / 4;
    float** bufs = (float**)malloc(sizeof(float*) * keys);
    for (long k = 0; k < keys; ++k) {
      bufs[k] = (float*)malloc(sizeof(float) * count);
      for (long i = 0; i < count; ++i) bufs[k][i] = (float)(rank + 1);
    }
    double* seconds = (double*)malloc(sizeof(double) * (repeats > 0 ? repeats : 1));
    for (int r = -warmup; r < repeats; ++r) {
      MPI_Barrier(MPI_COMM_WORLD);
      const double t0 = MPI_Wtime();
      for (long o = 0; o < ops; ++o) {
        for (long k = 0; k < keys; ++k) {
          MPI_Allreduce(MPI_IN_PLACE, bufs[k], (int)count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        }
      }
      const double t = (MPI_Wtime() - t0) / (double)ops;
      if (r >= 0) seconds[r] = t;
    }
    if (rank == 0) {
      printf("{\"bytes\": %ld, \"keys\": %ld, \"ops\": %ld, \"seconds\": [", bytes, keys, ops);
      for (int r = 0; r < repeats; ++r) printf("%s%.9g", r ? ", " : "", seconds[r]);
      printf("]}\n");
      fflush(stdout);
    }
    for (long k = 0; k < keys; ++k) free(bufs[k]);
    free(bufs);
    free(seconds);
  }
  MPI_Finalize();
  return 0;
}
