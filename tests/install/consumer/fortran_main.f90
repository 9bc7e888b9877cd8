!> Writes a small dataset through an installed hzio's Fortran module (collective writer) and reads
!> it back with the serial reader; prints the grid and one sample. Built by find_package
!> (hzio::fortran) and by pkg-config (hzio-fortran).
program fortran_consumer
  use, intrinsic :: iso_fortran_env, only: int8, int64
  use mpi_f08
  use hzio
  implicit none
  type(hzio_desc) :: desc
  type(hzio_writer) :: writer
  type(hzio_reader) :: reader
  integer(int8), allocatable, target :: v(:, :, :), back(:, :, :)
  integer(int64) :: n(3)
  character(256) :: path
  integer :: i, rank

  call MPI_Init()
  call get_command_argument(1, path)
  allocate (v(8, 8, 8), back(8, 8, 8))
  v = reshape([(int(modulo(mod(i, 251) + 128, 256) - 128, int8), i = 0, 511)], [8, 8, 8])  ! as uint8 bits
  call hzio_desc_create(desc, [8_int64, 8_int64, 8_int64])
  call hzio_desc_add_field(desc, 'v', 'uint8')
  call hzio_writer_create_mpi(writer, trim(path), desc, MPI_COMM_WORLD, HZIO_OVERWRITE)
  call hzio_writer_add(writer, 'v', 0_int64, [0_int64, 0_int64, 0_int64], v)
  call hzio_writer_write(writer)
  call hzio_writer_free(writer)
  call hzio_desc_free(desc)
  call hzio_reader_open(reader, trim(path))
  call hzio_reader_query_grid(reader, [0_int64, 0_int64, 0_int64], [8_int64, 8_int64, 8_int64], HZIO_FULL_RESOLUTION, n)
  call hzio_reader_read(reader, 'v', 0_int64, HZIO_FULL_RESOLUTION, [0_int64, 0_int64, 0_int64], n, back)
  call hzio_reader_free(reader)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  if (rank == 0) print '(i0,"x",i0,"x",i0,1x,i0)', n, back(5, 6, 5)  ! sample 300: x=4, y=5, z=4
  call MPI_Finalize()
end program
