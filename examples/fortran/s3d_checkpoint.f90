!> An S3D-like checkpoint and restart through hzio's Fortran module (the C example's twin).
!>
!> Every rank owns one box of a 3-D grid split PX x PY x PZ (--grid; remainders go to the first
!> boxes). The checkpoint holds S3D's variables as real64 arrays indexed (component, x, y, z) --
!> pressure, temperature, velocity(3), species(11) -- for two timesteps, each value given by the
!> formula of hzio's design.md §4, so the restart checks every sample bit for bit, at full
!> resolution and at a coarse level, with whatever rank count it runs at.
!>
!>   mpiexec -n 4 s3d_checkpoint_f ckpt/s3d.idx --dims 64,64,64 --phase write
!>   mpiexec -n 2 s3d_checkpoint_f ckpt/s3d.idx --phase restart
!>
!> Exit status: 0 when every sample equals the formula, 1 on a mismatch, 2 on an error.
program s3d_checkpoint
  use, intrinsic :: iso_fortran_env, only: int64, real64, error_unit
  use mpi_f08
  use hzio
  implicit none

  integer, parameter :: nvars = 4, ntimes = 2
  character(*), parameter :: names(nvars) = [character(11) :: 'pressure', 'temperature', 'velocity', 'species']
  character(*), parameter :: dtypes(nvars) = [character(11) :: 'float64', 'float64', 'float64[3]', 'float64[11]']
  integer, parameter :: components(nvars) = [1, 1, 3, 11]

  !> One variable at one timestep on this rank: a(component, x, y, z).
  type :: variable
    real(real64), allocatable :: a(:, :, :, :)
  end type

  character(:), allocatable :: path, phase
  integer(int64) :: dims(3) = [64, 64, 64], grid(3) = 0, offset(3), count(3)
  integer :: level = -1, read_flags = 0, write_flags = 0, rank, ranks, factors(3), result

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, ranks)
  call parse_arguments()
  if (grid(1) == 0) then  ! like S3D: the largest factors on the slowest axes
    factors = 0
    call MPI_Dims_create(ranks, 3, factors)
    grid = [int(factors(3), int64), int(factors(2), int64), int(factors(1), int64)]
  end if
  if (product(grid) /= ranks) call usage('--grid must have one box per rank')

  result = 0
  if (phase /= 'restart') then
    call grid_cell(dims, grid, int(rank, int64), offset, count)
    call write_checkpoint()
  end if
  if (phase /= 'write') call restart(result)
  deallocate (path, phase)
  call MPI_Finalize()
  if (result /= 0) stop 1

contains

  !> design.md §4 for float64: s = x + 1000 y + 10^6 z, v = s + 0.125 c + 0.0625 f + 1e9 t
  !> (f, c 0-based).
  pure real(real64) function formula(f, c, t, x, y, z)
    integer, intent(in) :: f, c
    integer(int64), intent(in) :: t, x, y, z
    formula = real(x + 1000 * y + 1000000 * z, real64) + 0.125_real64 * c + 0.0625_real64 * f + 1e9_real64 * real(t, real64)
  end function

  !> Cell `index` (x fastest) of `dims` split into grid(d) parts per axis, remainders first.
  pure subroutine grid_cell(dims, grid, index, offset, count)
    integer(int64), intent(in) :: dims(3), grid(3), index
    integer(int64), intent(out) :: offset(3), count(3)
    integer(int64) :: i, rest, base, extra
    integer :: d
    rest = index
    do d = 1, 3
      i = mod(rest, grid(d))
      rest = rest / grid(d)
      base = dims(d) / grid(d)
      extra = mod(dims(d), grid(d))
      count(d) = base + merge(1, 0, i < extra)
      offset(d) = i * base + min(i, extra)
    end do
  end subroutine

  !> Samples of variable f at t on the lattice origin + k*stride (0 <= k < n): fills `a`, or
  !> (check) returns how many differ bit for bit.
  integer(int64) function lattice(f, t, origin, stride, a, check) result(bad)
    integer, intent(in) :: f
    integer(int64), intent(in) :: t, origin(3), stride(3)
    real(real64), intent(inout) :: a(:, :, :, :)
    logical, intent(in) :: check
    integer(int64) :: i, j, k, x, y, z
    integer :: c
    real(real64) :: want
    bad = 0
    do k = 1, size(a, 4, kind=int64)
      z = origin(3) + (k - 1) * stride(3)
      do j = 1, size(a, 3, kind=int64)
        y = origin(2) + (j - 1) * stride(2)
        do i = 1, size(a, 2, kind=int64)
          x = origin(1) + (i - 1) * stride(1)
          do c = 1, size(a, 1)
            want = formula(f - 1, c - 1, t, x, y, z)
            if (.not. check) then
              a(c, i, j, k) = want
            else if (transfer(a(c, i, j, k), 0_int64) /= transfer(want, 0_int64)) then
              if (bad == 0) write (error_unit, '(a,i0,3a,i0,a,3(1x,i0),a,i0,a,es24.16e3,a,es24.16e3)') 'rank ', rank, &
                ': mismatch: ', trim(names(f)), ' t=', t, ' at', x, y, z, ' component ', c - 1, ' is ', a(c, i, j, k), &
                ', not ', want
              bad = bad + 1
            end if
          end do
        end do
      end do
    end do
  end function

  subroutine write_checkpoint()
    type(hzio_desc) :: desc
    type(hzio_writer) :: writer
    type(hzio_io_stats) :: stats
    ! hzio keeps the arrays' addresses, not copies, until the write: TARGET, alive until then.
    type(variable), target :: vars(nvars, 0:ntimes - 1)
    integer :: f
    integer(int64) :: t, bad

    call hzio_desc_create(desc, dims)
    do f = 1, nvars
      call hzio_desc_add_field(desc, trim(names(f)), trim(dtypes(f)))
    end do
    call hzio_desc_set_timesteps(desc, 0_int64, int(ntimes - 1, int64))
    call hzio_writer_create_mpi(writer, path, desc, MPI_COMM_WORLD, ior(HZIO_OVERWRITE, write_flags))
    call hzio_desc_free(desc)
    do t = 0, ntimes - 1
      do f = 1, nvars
        allocate (vars(f, t)%a(components(f), count(1), count(2), count(3)))
        bad = lattice(f, t, offset, [1_int64, 1_int64, 1_int64], vars(f, t)%a, .false.)
        call hzio_writer_add(writer, trim(names(f)), t, offset, vars(f, t)%a)
      end do
    end do
    call hzio_writer_write(writer)  ! collective
    call hzio_writer_get_stats(writer, stats)
    call hzio_writer_free(writer)
    if (rank == 0) print '(a,i0,a,f7.3,a,f7.3,a)', 'checkpoint: ', stats%data_bytes, ' bytes in ', stats%seconds, &
      ' s (', real(stats%data_bytes, real64) / stats%seconds / 2.0_real64**30, ' GiB/s)'
  end subroutine

  !> Reads this rank's box of every variable at `at_level` and checks every sample.
  subroutine restart_at_level(reader, at_level, bad, checked)
    type(hzio_reader), intent(in) :: reader
    integer, intent(in) :: at_level
    integer(int64), intent(inout) :: bad, checked
    integer(int64) :: n(3), origin(3), stride(3), t
    real(real64), allocatable :: a(:, :, :, :)
    integer :: f
    call hzio_reader_query_grid(reader, offset, count, at_level, n, origin, stride)
    do t = 0, ntimes - 1
      do f = 1, nvars
        ! n is 0 where this rank's box holds no sample of a coarse level: it still joins the read.
        allocate (a(components(f), n(1), n(2), n(3)))
        call hzio_reader_read(reader, trim(names(f)), t, at_level, offset, count, a)  ! collective
        bad = bad + lattice(f, t, origin, stride, a, .true.)
        checked = checked + size(a, kind=int64)
        deallocate (a)
      end do
    end do
  end subroutine

  subroutine restart(result)
    integer, intent(out) :: result
    type(hzio_reader) :: reader
    type(hzio_desc) :: desc
    integer(int64), allocatable :: found(:), times(:)
    character(:), allocatable :: name, dtype
    integer(int64) :: bad, checked, totals(2)
    integer :: maxh, nfields, f, k
    logical :: known

    call hzio_reader_open_mpi(reader, path, MPI_COMM_WORLD, read_flags)
    ! What the checkpoint holds: its size, variables and their types, timesteps.
    call hzio_reader_get_desc(reader, desc)
    call hzio_desc_get_dims(desc, found)
    call hzio_desc_get_maxh(desc, maxh)
    call hzio_desc_get_timesteps(desc, times)
    call hzio_desc_get_num_fields(desc, nfields)
    bad = 0
    if (size(found) /= 3 .or. size(times) /= ntimes) then
      write (error_unit, '(a)') 'the checkpoint is not 3-D with timesteps 0..1'
      bad = 1
    end if
    do f = 1, nvars
      known = .false.
      do k = 1, nfields  ! field indices are 1-based in Fortran
        call hzio_desc_get_field(desc, k, name=name, dtype=dtype)
        if (name /= trim(names(f))) cycle
        known = .true.
        if (dtype /= trim(dtypes(f))) then
          write (error_unit, '(4a)') trim(names(f)), ' is ', dtype, ', not ' // trim(dtypes(f))
          bad = 1
        end if
      end do
      if (.not. known) bad = 1
    end do
    if (level < 0) level = max(maxh - 3, 0)  ! 1/8 of the samples
    dims = found
    call grid_cell(dims, grid, int(rank, int64), offset, count)
    checked = 0
    ! The header is the same on every rank, so all ranks take part in these collective reads or none.
    if (bad == 0) then
      call restart_at_level(reader, HZIO_FULL_RESOLUTION, bad, checked)
      call restart_at_level(reader, level, bad, checked)
    end if
    call hzio_reader_free(reader)

    call MPI_Allreduce([bad, checked], totals, 2, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD)
    if (rank == 0) print '(a,i0,a,i0,a,i0,a,i0,a,i0,a,i0,a,i0,a,i0,a)', 'restart: ', ranks, ' ranks (grid ', grid(1), 'x', &
      grid(2), 'x', grid(3), '), levels ', maxh, ' and ', level, ': ', totals(2), ' values checked, ', totals(1), &
      ' differ from the formula'
    result = merge(0, 1, totals(1) == 0 .and. totals(2) > 0)
  end subroutine

  subroutine parse_arguments()
    character(256) :: arg, value
    integer :: i, n
    phase = 'both'
    n = command_argument_count()
    i = 1
    do while (i <= n)
      call get_command_argument(i, arg)
      value = ''
      if (i < n) call get_command_argument(i + 1, value)
      select case (trim(arg))
      case ('--dims')
        read (value, *, err=9) dims
        i = i + 1
      case ('--grid')
        read (value, *, err=9) grid
        i = i + 1
      case ('--phase')
        phase = trim(value)
        i = i + 1
      case ('--level')
        read (value, *, err=9) level
        i = i + 1
      case ('--one-phase')
        read_flags = ior(read_flags, HZIO_ONE_PHASE)
      case ('--sync')
        write_flags = ior(write_flags, HZIO_SYNC)
      case default
        if (arg(1:1) == '-' .or. allocated(path)) call usage('unknown argument ' // trim(arg))
        path = trim(arg)
      end select
      i = i + 1
    end do
    if (.not. allocated(path)) call usage('no DATASET.idx')
    if (phase /= 'write' .and. phase /= 'restart' .and. phase /= 'both') call usage('--phase must be write, restart or both')
    if (any(dims < 1) .or. any(grid < 0)) call usage('--dims and --grid take positive integers')
    return
9   call usage('bad value ' // trim(value) // ' for ' // trim(arg))
  end subroutine

  subroutine usage(message)
    character(*), intent(in) :: message
    if (rank == 0) write (error_unit, '(a)') message, &
      'usage: s3d_checkpoint_f DATASET.idx [--dims X,Y,Z] [--grid PX,PY,PZ] [--phase write|restart|both]', &
      '                        [--level H] [--one-phase] [--sync]'
    call MPI_Finalize()
    error stop 2
  end subroutine

end program
