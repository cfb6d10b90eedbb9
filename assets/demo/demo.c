/* demo.c: the source of prvscope's demo trace (a 2D stencil solver). */
#include <mpi.h>
#include <stdio.h>

#define N 1024
static double grid[N][N], next[N][N];
static double exchange_halo(int rank, int size); static double compute_flux(int rows);
double solve(int rank, int size); double reduce_residual(double local); void write_checkpoint(int rank);

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double residual = solve(rank, size);
    if (rank == 0)
        printf("residual %g\n", residual);
    write_checkpoint(rank);
    MPI_Finalize();
    return 0;
}

double solve(int rank, int size)
{
    double residual = 1.0;
    int rows = N / size;
    for (int it = 0; it < 1000 && residual > 1e-6; it++) {
        exchange_halo(rank, size);
        residual = compute_flux(rows);
        residual = reduce_residual(residual);
    }
    return residual;
}






static double exchange_halo(int rank, int size)
{
    int up = (rank + size - 1) % size, down = (rank + 1) % size;
    MPI_Request req[4];
    MPI_Irecv(grid[0], N, MPI_DOUBLE, up, 0, MPI_COMM_WORLD, &req[0]);
    MPI_Irecv(grid[N - 1], N, MPI_DOUBLE, down, 1, MPI_COMM_WORLD, &req[1]);
    MPI_Isend(grid[1], N, MPI_DOUBLE, up, 1, MPI_COMM_WORLD, &req[2]);
    MPI_Isend(grid[N - 2], N, MPI_DOUBLE, down, 0, MPI_COMM_WORLD, &req[3]);
    MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
    return 0.0;
}






static double compute_flux(int rows)
{
    double change = 0.0;
    #pragma omp parallel for reduction(+:change)
    for (int i = 1; i < rows - 1; i++) {
        for (int j = 1; j < N - 1; j++) {
            next[i][j] = 0.25 * (grid[i - 1][j] + grid[i + 1][j]
                               + grid[i][j - 1] + grid[i][j + 1]);
            double d = next[i][j] - grid[i][j];
            change += d * d;
        }
    }
    for (int i = 1; i < rows - 1; i++)
        for (int j = 1; j < N - 1; j++)
            grid[i][j] = next[i][j];
    return change;
}


double reduce_residual(double local)
{
    double global = 0.0;
    MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return global;
}










void write_checkpoint(int rank)
{
    char name[64];
    snprintf(name, sizeof name, "checkpoint.%d", rank);
    FILE *f = fopen(name, "wb");
    if (f) {
        fwrite(grid, sizeof grid, 1, f);
        fclose(f);
    }
}
