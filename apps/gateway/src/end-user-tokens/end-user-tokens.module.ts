import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { EndUserTokensController } from './end-user-tokens.controller';
import { MintEndUserToken } from './mint-end-user-token.use-case';

@Module({ imports: [AuthModule], controllers: [EndUserTokensController], providers: [MintEndUserToken] })
export class EndUserTokensModule {}
