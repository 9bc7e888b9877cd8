!> The Fortran module `hzio` (reader/fortran/hzio.F90) under mpiexec: descriptions and their
!> queries, collective writes of arrays of several kinds and ranks read back by collective and
!> serial readers at full and coarse resolution (design.md §4's formula), and the status and
!> message of every kind of bad input the module itself checks or passes on. Exits non-zero if
!> any check fails on any rank.
program fortran_api_test
  use, intrinsic :: iso_fortran_env, only: int32, int64, real32, real64, error_unit
  use mpi_f08
  use hzio
  implicit none

  integer(int64), parameter :: nx = 12, ny = 10, nz = 7
  integer :: failures = 0, rank, ranks, total

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, ranks)
  call test_statuses()
  call test_descriptions()
  call test_collective_round_trip()
  call MPI_Allreduce(failures, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0) print '(a,i0,a)', 'fortran_api_test: ', total, ' failed checks'
  call MPI_Finalize()
  if (total /= 0) error stop 1

contains

  subroutine expect(condition, what)
    logical, intent(in) :: condition
    character(*), intent(in) :: what
    if (condition) return
    failures = failures + 1
    write (error_unit, '(a,i0,2a)') 'rank ', rank, ': FAILED: ', what
  end subroutine

  !> `status` is `want` and hzio_last_error() holds `part`.
  subroutine expect_error(status, want, part)
    integer, intent(in) :: status, want
    character(*), intent(in) :: part
    call expect(status == want, 'status ' // hzio_status_name(status) // ' is not ' // hzio_status_name(want) // &
                ' (' // hzio_last_error() // ')')
    call expect(index(hzio_last_error(), part) > 0, 'message "' // hzio_last_error() // '" lacks "' // part // '"')
  end subroutine

  !> design.md §4 before rounding: s + 0.125 c + 0.0625 f + 1e9 t (f, c 0-based).
  pure real(real64) function formula(f, c, t, x, y, z)
    integer, intent(in) :: f, c
    integer(int64), intent(in) :: t, x, y, z
    formula = real(x + 1000 * y + 1000000 * z, real64) + 0.125_real64 * c + 0.0625_real64 * f + 1e9_real64 * t
  end function

  subroutine test_statuses()
    call expect(hzio_status_name(HZIO_ERR_NOT_FOUND) == 'not_found', 'status name of HZIO_ERR_NOT_FOUND')
    call expect(hzio_status_name(HZIO_ERR_LOCKED) == 'locked', 'status name of HZIO_ERR_LOCKED')
    call expect(hzio_status_name(HZIO_OK) == 'ok', 'status name of HZIO_OK')
    call expect(hzio_version() == '0.1.0', 'version ' // hzio_version())
  end subroutine

  subroutine test_descriptions()
    type(hzio_desc) :: desc
    integer(int64), allocatable :: dims(:), times(:)
    character(:), allocatable :: name, dtype, compression
    integer :: status, components, n, maxh
    integer(int64) :: sample_bytes

    call hzio_desc_create(desc, [nx, ny, nz])
    call hzio_desc_add_field(desc, 'p', 'float64')
    call hzio_desc_add_field(desc, 'v', 'float32[3]')
    call hzio_desc_set_compression(desc, 'lz4')
    call hzio_desc_add_field(desc, 'm', 'int32')
    call hzio_desc_set_compression(desc, 'zip', field='p')
    call hzio_desc_set_timesteps(desc, 0_int64, 2_int64)
    call hzio_desc_set_bits_per_block(desc, 6)
    call hzio_desc_set_blocks_per_file(desc, 8_int64)
    call hzio_desc_get_dims(desc, dims)
    call expect(size(dims) == 3, 'three axes')
    call expect(all(dims == [nx, ny, nz]), 'dims')
    call hzio_desc_get_maxh(desc, maxh)
    call expect(maxh == 4 + 4 + 3, 'maxh of 12x10x7 (padded to 16x16x8)')
    call hzio_desc_get_num_fields(desc, n)
    call expect(n == 3, 'three fields')
    call hzio_desc_get_field(desc, 2, name=name, dtype=dtype, components=components, sample_bytes=sample_bytes, &
                             compression=compression)
    call expect(name == 'v' .and. dtype == 'float32[3]' .and. components == 3 .and. sample_bytes == 12, &
                'field 2 is v, float32[3]: ' // name // ' ' // dtype)
    call expect(compression == 'lz4', 'v is lz4: ' // compression)
    call hzio_desc_get_field(desc, 1, compression=compression)
    call expect(compression == 'zip', 'p is zip: ' // compression)
    call hzio_desc_get_field(desc, 3, compression=compression)
    call expect(compression == 'lz4', 'm (added later) is lz4: ' // compression)
    call hzio_desc_get_timesteps(desc, times)
    call expect(size(times) == 3, 'three timesteps')
    if (size(times) == 3) call expect(all(times == [0_int64, 1_int64, 2_int64]), 'timesteps 0..2')

    call hzio_desc_add_field(desc, 'p', 'float64', status)
    call expect_error(status, HZIO_ERR_INVALID_ARGUMENT, "hzio_desc_add_field: a field named 'p' exists already")
    call hzio_desc_add_field(desc, 'q', 'float65', status)
    call expect_error(status, HZIO_ERR_INVALID_ARGUMENT, 'float65')
    call hzio_desc_set_compression(desc, 'zip', field='nope', status=status)
    call expect_error(status, HZIO_ERR_NOT_FOUND, "unknown field 'nope' (fields: p, v, m)")
    call hzio_desc_set_compression(desc, 'zpi', status=status)
    call expect_error(status, HZIO_ERR_INVALID_ARGUMENT, "unknown compression 'zpi'")
    call hzio_desc_set_layout(desc, 3, status=status)
    call expect_error(status, HZIO_ERR_INVALID_ARGUMENT, 'layout 3')
    call hzio_desc_set_timesteps(desc, 5_int64, 4_int64, status)
    call expect_error(status, HZIO_ERR_INVALID_ARGUMENT, 'timesteps 5..4 are empty')
    call hzio_desc_get_field(desc, 4, name=name, status=status)
    call expect_error(status, HZIO_ERR_NOT_FOUND, 'field index 4 is outside 1..3')
    call hzio_desc_get_field(desc, 0, status=status)
    call expect_error(status, HZIO_ERR_NOT_FOUND, 'field index 0 is outside 1..3')
    call hzio_desc_free(desc)
    call hzio_desc_free(desc)  ! freed handles are null: a second free does nothing

    call hzio_desc_create(desc, [0_int64, 4_int64], status)
    call expect_error(status, HZIO_ERR_INVALID_ARGUMENT, 'size 0 of axis 0')
  end subroutine

  subroutine test_collective_round_trip()
    character(*), parameter :: path = 'fortran_api_test_out/sim.idx'
    type(hzio_desc) :: desc, borrowed
    type(hzio_writer) :: writer
    type(hzio_reader) :: reader, serial
    type(hzio_io_stats) :: stats
    type(MPI_Info) :: hints, bad
    real(real64), allocatable, target :: p(:, :, :, :)        ! (x, y, z, t)
    real(real32), allocatable, target :: v(:, :, :, :, :)     ! (c, x, y, z, t)
    integer(int32), allocatable, target :: m(:, :, :, :, :)   ! (1, x, y, z, t): a scalar with a component axis
    real(real32), allocatable, target :: wrong(:, :, :), two(:, :, :, :)
    real(real64), allocatable :: back(:, :, :), coarse(:, :, :)
    real(real32), allocatable :: vback(:, :, :, :)
    integer(int32), allocatable :: mback(:, :, :)
    integer(int64) :: z0, z1, t, x, y, z, offset(3), count(3), n(3), origin(3), stride(3)
    integer :: c, status, maxh
    logical :: ok

    ! This rank's z slab (remainders to the first ranks).
    z0 = rank * (nz / ranks) + min(int(rank, int64), mod(nz, int(ranks, int64)))
    z1 = z0 + nz / ranks + merge(1, 0, rank < mod(nz, int(ranks, int64)))
    allocate (p(nx, ny, z1 - z0, 0:2), v(3, nx, ny, z1 - z0, 0:2), m(1, nx, ny, z1 - z0, 0:2))
    do t = 0, 2
      do z = z0, z1 - 1
        do y = 0, ny - 1
          do x = 0, nx - 1
            p(x + 1, y + 1, z - z0 + 1, t) = formula(0, 0, t, x, y, z)
            do c = 0, 2
              v(c + 1, x + 1, y + 1, z - z0 + 1, t) = real(formula(1, c, t, x, y, z), real32)
            end do
            m(1, x + 1, y + 1, z - z0 + 1, t) = int(x + 1000 * y + 1000000 * z + 11 * 2 + 13 * t, int32)
          end do
        end do
      end do
    end do

    call hzio_desc_create(desc, [nx, ny, nz])
    call hzio_desc_add_field(desc, 'p', 'float64')
    call hzio_desc_add_field(desc, 'v', 'float32[3]')
    call hzio_desc_add_field(desc, 'm', 'int32')
    call hzio_desc_set_timesteps(desc, 0_int64, 2_int64)
    call hzio_desc_set_bits_per_block(desc, 6)
    call hzio_desc_set_compression(desc, 'zip', field='v')
    ! Hints (hzio_mpi.h): one aggregator, a budget of 16 KiB (rounds), two threads per rank.
    call MPI_Info_create(hints)
    call MPI_Info_set(hints, 'aggregators', '1')
    call MPI_Info_set(hints, 'memory_budget', '16k')
    call MPI_Info_set(hints, 'threads', '2')
    call hzio_writer_create_mpi(writer, path, desc, MPI_COMM_WORLD, HZIO_OVERWRITE, info=hints)  ! type(MPI_Comm)
    call MPI_Info_free(hints)
    call hzio_desc_free(desc)
    offset = [0_int64, 0_int64, z0]
    do t = 0, 2
      call hzio_writer_add(writer, 'p', t, offset, p(:, :, :, t))
      call hzio_writer_add(writer, 'v', t, offset, v(:, :, :, :, t))
      call hzio_writer_add(writer, 'm', t, offset, m(:, :, :, :, t))
    end do
    ! Bad adds are refused on this rank and leave the writer as it was.
    call hzio_writer_add(writer, 'temperature', 0_int64, offset, p(:, :, :, 0), status)
    call expect_error(status, HZIO_ERR_NOT_FOUND, "hzio_writer_add_array: unknown field 'temperature'")
    allocate (wrong(nx, ny, z1 - z0))
    call hzio_writer_add(writer, 'p', 0_int64, offset, wrong, status)
    call expect_error(status, HZIO_ERR_INVALID_ARGUMENT, "array elements of 4 bytes do not hold field 'p' (float64")
    call hzio_writer_add(writer, 'p', 0_int64, offset, p(1:nx:2, :, :, 0), status)
    call expect_error(status, HZIO_ERR_INVALID_ARGUMENT, "the array for field 'p' is not contiguous")
    allocate (two(2, nx, ny, z1 - z0))
    call hzio_writer_add(writer, 'v', 0_int64, offset, two, status)
    call expect_error(status, HZIO_ERR_INVALID_ARGUMENT, 'not its 3 components')
    call hzio_writer_add(writer, 'p', 3_int64, offset, p(:, :, :, 0), status)
    call expect_error(status, HZIO_ERR_NOT_FOUND, 'timestep 3 is not declared')
    call hzio_writer_add(writer, 'p', 0_int64, [0_int64, 0_int64, nz], p(:, :, :, 0), status)
    call expect_error(status, HZIO_ERR_OUT_OF_RANGE, 'is not inside the dataset box')
    call hzio_writer_get_desc(writer, borrowed)
    call hzio_desc_free(borrowed, status)
    call expect_error(status, HZIO_ERR_INVALID_ARGUMENT, 'belongs to a reader or writer')
    call hzio_writer_write(writer)
    call hzio_writer_get_stats(writer, stats)
    call expect(stats%data_bytes == 3 * nx * ny * nz * (8 + 12 + 4), 'bytes written')
    call expect(stats%aggregators == 1, 'the aggregators hint')
    call hzio_writer_write(writer, status)
    call expect_error(status, HZIO_ERR_INVALID_ARGUMENT, 'written its dataset already')
    call hzio_writer_free(writer)

    ! Every rank reads the whole dataset back (integer communicator handle, one-phase).
    call hzio_reader_open_mpi(reader, path, MPI_COMM_WORLD%MPI_VAL, HZIO_ONE_PHASE)
    call hzio_reader_get_desc(reader, borrowed)
    call hzio_desc_get_maxh(borrowed, maxh)
    count = [nx, ny, nz]
    allocate (back(nx, ny, nz), vback(3, nx, ny, nz), mback(nx, ny, nz))
    do t = 0, 2
      call hzio_reader_read(reader, 'p', t, HZIO_FULL_RESOLUTION, [0_int64, 0_int64, 0_int64], count, back)
      call hzio_reader_read(reader, 'v', t, HZIO_FULL_RESOLUTION, [0_int64, 0_int64, 0_int64], count, vback)
      call hzio_reader_read(reader, 'm', t, HZIO_FULL_RESOLUTION, [0_int64, 0_int64, 0_int64], count, mback)
      ok = .true.
      do z = 0, nz - 1
        do y = 0, ny - 1
          do x = 0, nx - 1
            ok = ok .and. transfer(back(x + 1, y + 1, z + 1), 0_int64) == transfer(formula(0, 0, t, x, y, z), 0_int64)
            ok = ok .and. mback(x + 1, y + 1, z + 1) == int(x + 1000 * y + 1000000 * z + 22 + 13 * t, int32)
            do c = 0, 2
              ok = ok .and. transfer(vback(c + 1, x + 1, y + 1, z + 1), 0_int32) == &
                            transfer(real(formula(1, c, t, x, y, z), real32), 0_int32)
            end do
          end do
        end do
      end do
      call expect(ok, 'collective read equals the formula')
    end do
    ! A coarse level: the samples query_grid names, at its positions.
    call hzio_reader_query_grid(reader, [2_int64, 1_int64, 0_int64], [9_int64, 9_int64, nz], maxh - 3, n, origin, stride)
    allocate (coarse(n(1), n(2), n(3)))
    call hzio_reader_read(reader, 'p', 2_int64, maxh - 3, [2_int64, 1_int64, 0_int64], [9_int64, 9_int64, nz], coarse)
    ok = product(n) > 0
    do z = 1, n(3)
      do y = 1, n(2)
        do x = 1, n(1)
          ok = ok .and. coarse(x, y, z) == formula(0, 0, 2_int64, origin(1) + (x - 1) * stride(1), &
                                                   origin(2) + (y - 1) * stride(2), origin(3) + (z - 1) * stride(3))
        end do
      end do
    end do
    call expect(ok, 'coarse read equals the formula')
    ! The array must hold the result exactly; collective errors reach every rank.
    call hzio_reader_read(reader, 'p', 0_int64, maxh - 3, [2_int64, 1_int64, 0_int64], [9_int64, 9_int64, nz], back, status)
    call expect_error(status, HZIO_ERR_INVALID_ARGUMENT, 'it needs')
    call hzio_reader_read(reader, 'q', 0_int64, HZIO_FULL_RESOLUTION, [0_int64, 0_int64, 0_int64], count, back, status)
    call expect_error(status, HZIO_ERR_NOT_FOUND, "unknown field 'q'")
    call hzio_reader_read(reader, 'p', 0_int64, maxh + 1, [0_int64, 0_int64, 0_int64], count, back, status)
    call expect_error(status, HZIO_ERR_OUT_OF_RANGE, 'is outside 0..')
    call hzio_reader_free(reader)

    ! A serial reader of the same dataset (no communicator).
    call hzio_reader_open(serial, path)
    call hzio_reader_read(serial, 'm', 1_int64, HZIO_FULL_RESOLUTION, [0_int64, 0_int64, 0_int64], count, mback)
    call expect(mback(nx, ny, nz) == int(nx - 1 + 1000 * (ny - 1) + 1000000 * (nz - 1) + 22 + 13, int32), &
                'serial read of m')
    call hzio_reader_free(serial)
    call hzio_reader_open(serial, 'fortran_api_test_out/missing.idx', status)
    call expect_error(status, HZIO_ERR_NOT_FOUND, 'missing.idx')
    call hzio_reader_open_mpi(reader, 'fortran_api_test_out/missing.idx', MPI_COMM_WORLD, status=status)
    call expect_error(status, HZIO_ERR_NOT_FOUND, 'missing.idx')
    ! A misspelt hint fails the open on every rank (integer handles this time).
    call MPI_Info_create(bad)
    call MPI_Info_set(bad, 'thread', '2')
    call hzio_reader_open_mpi(reader, path, MPI_COMM_WORLD%MPI_VAL, status=status, info=bad%MPI_VAL)
    call expect_error(status, HZIO_ERR_INVALID_ARGUMENT, "unknown hint 'thread'")
    call MPI_Info_free(bad)
  end subroutine

end program
